//! Funnels in ClickHouse SQL: per visitor and day, each step's earliest matching event (a page
//! view of its path, or its event name, matching the filters) at or after the step before's, in
//! the visitor day's sorted array (`sql::days_of`), which holds only the events that can be a step.
//!
//! A read without filters takes closed days' counts from `funnel_daily`: the first read that
//! needs a day's counts computes them with the other days and stores them under the day's
//! summary run (`closed_days`), so later reads, after a restart too, compute only the days not
//! summarised (today). A day summarised again (late events, a copy) has a new run, so its stored
//! counts are no longer read and are computed again; an edited funnel has other steps, so another
//! key. Two reads storing one day at once store the same counts; a read takes one.

use std::collections::HashMap;

use chrono::NaiveDate;
use serde::Deserialize;
use serde_json::json;
use shipmate_types::analytics::{Funnel, FunnelReport, Step};

use super::client::quote;
use super::reads::{failed, filter_sql, Read};
use super::sql::days_of;
use super::summaries::list;
use super::visits::days_matching;
use shipmate_core::AppResult;

#[derive(Deserialize)]
struct Reached {
    day: NaiveDate,
    reached: Vec<i64>,
}

pub async fn funnel(read: &Read<'_>, funnel: &Funnel) -> AppResult<FunnelReport> {
    let steps: Vec<Condition> = funnel.steps.iter().map(condition).collect();
    let key = steps
        .iter()
        .map(|s| s.event.as_str())
        .collect::<Vec<_>>()
        .join(" THEN ");
    let project = quote(&read.project_id.to_string());
    let closed = match read.query.filters.0.is_empty() {
        true => read.summarised.days(),
        false => &[],
    };
    let stored: HashMap<NaiveDate, Vec<i64>> = match closed {
        [] => HashMap::new(),
        days => read
            .client
            .rows::<Reached>(&format!(
                "SELECT toString(day) AS day, any(reached) AS reached FROM funnel_daily
                 WHERE project_id = {project} AND funnel = {key} AND day IN ({}) AND run IN ({})
                 GROUP BY day",
                list(days, |(d, _)| format!("'{d}'")),
                list(days, |(_, r)| r.to_string()),
                key = quote(&key),
            ))
            .await
            .map_err(failed)?
            .into_iter()
            .map(|r| (r.day, r.reached))
            .collect(),
    };
    // The days to compute: all of the range's unless some are stored.
    let only = match stored.is_empty() {
        true => Some(String::new()),
        false => {
            let rest = read.summarised.rest().iter().copied();
            let missing = closed
                .iter()
                .map(|(d, _)| *d)
                .filter(|d| !stored.contains_key(d));
            let days: Vec<NaiveDate> = rest.chain(missing).collect();
            (!days.is_empty())
                .then(|| format!(" AND day IN ({})", list(&days, |d| format!("'{d}'"))))
        }
    };
    let computed: HashMap<NaiveDate, Vec<i64>> = match only {
        None => HashMap::new(),
        Some(only) => read
            .client
            .rows::<Reached>(&per_day(read, &steps, &only))
            .await
            .map_err(failed)?
            .into_iter()
            .map(|r| (r.day, r.reached))
            .collect(),
    };
    // Closed days computed now are stored, with zeros where no one reached the first step.
    let zeros = vec![0; steps.len()];
    let new: Vec<serde_json::Value> = closed
        .iter()
        .filter(|(d, _)| !stored.contains_key(d))
        .map(|(d, run)| {
            let reached = computed.get(d).unwrap_or(&zeros);
            json!({"project_id": read.project_id, "funnel": key, "day": d.to_string(),
                   "run": run, "reached": reached})
        })
        .collect();
    if !new.is_empty() {
        // Only a cache: a read whose rows could not be stored still answers.
        if let Err(e) = read.client.insert("funnel_daily", &new).await {
            tracing::warn!(error = %e, "funnel counts not stored");
        }
    }
    let counts = (0..steps.len())
        .map(|k| {
            stored
                .values()
                .chain(computed.values())
                .map(|r| r.get(k).copied().unwrap_or_default())
                .sum()
        })
        .collect();
    Ok(crate::funnels::report_of(funnel, read.query, counts))
}

/// A step's condition on an event's columns, and on an element `x` of a visitor day's array
/// (`sql::days_of`: x.2 page view, x.3 path, x.5 name).
struct Condition {
    event: String,
    element: String,
}

fn condition(step: &Step) -> Condition {
    let (event, element) = match &step.page {
        Some(page) => (
            format!("name = 'page_view' AND path = {}", quote(page)),
            format!("x.2 AND x.3 = {}", quote(page)),
        ),
        None => (
            format!("name = {}", quote(step.label())),
            format!("x.5 = {}", quote(step.label())),
        ),
    };
    Condition { event, element }
}

/// Per day of the read's events (those where `only` holds too), the visitors at each step.
fn per_day(read: &Read<'_>, steps: &[Condition], only: &str) -> String {
    // Each step's event as its index in the sorted array (0: not reached), searched from the step
    // before's: events of one visitor at one instant do not occur, so "at or after its time" is
    // "from its place on". 18.16 misreads a lambda that captures a column of its row (a step's
    // time), so none here does: the search runs on a slice instead.
    let mut columns = Vec::new();
    let mut reached = Vec::new();
    for (k, step) in steps.iter().enumerate() {
        let find =
            |within: &str| format!("arrayFirstIndex(x -> {} AND x.4, {within})", step.element);
        columns.push(if k == 0 {
            format!("{} AS i0", find("evs"))
        } else {
            let (prev, found) = (
                format!("i{}", k - 1),
                find(&format!("arraySlice(evs, i{})", k - 1)),
            );
            format!("if({prev} = 0 OR {found} = 0, 0, {prev} - 1 + {found}) AS i{k}")
        });
        reached.push(format!("toInt64(countIf(i{k} > 0))"));
    }
    // Only visitor days that reach the first step can reach any, and only the events that match
    // a step (and the filters) can be one: the others are left out of the arrays.
    let first = steps
        .first()
        .map(|s| format!(" AND {}", s.event))
        .unwrap_or_default();
    let any: Vec<&str> = steps.iter().map(|s| s.event.as_str()).collect();
    let hit = filter_sql(&read.query.filters);
    format!(
        "SELECT toString(day) AS day, [{}] AS reached FROM (SELECT day, {} FROM ({})) GROUP BY day",
        reached.join(", "),
        columns.join(", "),
        days_of(
            &format!(
                "{} AND (({})){hit}{only}",
                days_matching(read, &format!("{first}{only}")),
                any.join(") OR (")
            ),
            "1",
            false
        )
    )
}
