//! Funnels in ClickHouse SQL: per visitor and day, each step's earliest matching event (a page
//! view of its path, or its event name, matching the filters) at or after the step before's, in
//! the visitor day's sorted array (`sql::days_of`), which holds only the events that can be a step.
//!
//! A read without filters takes closed days' counts from `funnel_daily`: the first read that
//! needs a day's counts computes them with the other days and stores them under the day's
//! summary run (`paired_days`), so later reads, after a restart too, compute only the days not
//! summarised (today). A day summarised again (late events, a copy) has a new run, so its stored
//! counts are no longer read and are computed again; an edited funnel has other steps, so another
//! key. Two reads storing one day at once store the same counts; a read takes one. The workers'
//! upkeep stores the closed days of every saved funnel ahead of its reads (`keep_saved`), so even
//! a saved funnel's first read over a range computes only today.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use serde::Deserialize;
use serde_json::json;
use shipmate_types::analytics::{Funnel, FunnelReport, Period, Step};
use sqlx::PgPool;

use super::client::{quote, Client};
use super::reads::{failed, Read};
use super::sql::{days_of, filter_sql, list};
use super::summaries::Summarised;
use super::visits::days_matching;
use crate::query::{Range, ReadQuery};
use shipmate_core::AppResult;

/// Saved funnels whose closed days are counted per upkeep round at most (0.4 to 0.6 s each for 90
/// days of 10 M events on two cores), so many new funnels take turns with the summaries.
const FUNNELS_PER_ROUND: usize = 16;

#[derive(Deserialize)]
struct Reached {
    day: NaiveDate,
    reached: Vec<i64>,
}

pub async fn funnel(read: &Read<'_>, funnel: &Funnel) -> AppResult<FunnelReport> {
    let steps: Vec<Condition> = funnel.steps.iter().map(condition).collect();
    // Closed days' counts are kept for reads without filters only.
    let closed = match read.query.filters.0.is_empty() {
        true => read.summarised.days(),
        false => &[],
    };
    let also = (!closed.is_empty()).then(|| read.summarised.rest());
    let days = per_day(read, &steps, closed, also).await?;
    let counts = (0..steps.len())
        .map(|k| {
            days.iter()
                .map(|r| r.get(k).copied().unwrap_or_default())
                .sum()
        })
        .collect();
    Ok(crate::funnels::report_of(funnel, read.query, counts))
}

/// The workers' upkeep: every saved funnel's counts of the closed days of a 90-day read (the
/// longest period a read names) stored ahead of its reads, so that its first read over a range
/// computes only today, as later reads do (a custom range further back is still computed and
/// stored by its first read). Returns how many funnels it counted.
pub async fn keep_saved(client: &Client, db: &PgPool, upto: DateTime<Utc>) -> AppResult<usize> {
    let saved = crate::funnels::saved_steps(db).await?;
    let query = ReadQuery {
        range: Range::period(Period::Days90, upto),
        filters: Default::default(),
        compare: false,
    };
    // Closed days are every project's (no project named: only their days and runs are used).
    let closed = Summarised::of(client, "", &query.range)
        .await
        .map_err(failed)?;
    let days = closed.days();
    if saved.is_empty() || days.is_empty() {
        return Ok(0);
    }
    #[derive(Deserialize)]
    struct Kept {
        project: String,
        funnel: String,
        days: u64,
    }
    let kept: HashMap<(String, String), u64> = client
        .rows::<Kept>(&format!(
            "SELECT toString(project_id) AS project, funnel, uniqExact(day) AS days FROM funnel_daily
             WHERE day IN ({}) AND run IN ({}) GROUP BY project, funnel",
            list(days, |(d, _)| format!("'{d}'")),
            list(days, |(_, r)| r.to_string()),
        ))
        .await
        .map_err(failed)?
        .into_iter()
        .map(|k| ((k.project, k.funnel), k.days))
        .collect();
    let behind = saved.iter().filter_map(|(project, steps)| {
        let steps: Vec<Condition> = steps.iter().map(condition).collect();
        let kept = kept.get(&(project.to_string(), key_of(&steps)));
        (kept.copied().unwrap_or_default() < days.len() as u64).then_some((project, steps))
    });
    let mut counted = 0;
    for (project, steps) in behind.take(FUNNELS_PER_ROUND) {
        let mut read = Read::new(client, *project, &query);
        read.summarised = closed.clone();
        per_day(&read, &steps, days, Some(&[])).await?;
        counted += 1;
    }
    Ok(counted)
}

/// The funnel's key in `funnel_daily`: its steps' conditions.
fn key_of(steps: &[Condition]) -> String {
    steps
        .iter()
        .map(|s| s.event.as_str())
        .collect::<Vec<_>>()
        .join(" THEN ")
}

/// Each day's visitors per step: `closed` days' (summarised, with their runs) from `funnel_daily`
/// where stored, the others computed with the days of `also` (every day of the range when `None`)
/// in one statement; the closed days computed are stored, with zeros where no one reached the
/// first step.
async fn per_day(
    read: &Read<'_>,
    steps: &[Condition],
    closed: &[(NaiveDate, u64)],
    also: Option<&[NaiveDate]>,
) -> AppResult<Vec<Vec<i64>>> {
    let key = key_of(steps);
    let project = quote(&read.project_id.to_string());
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
    let missing: Vec<&(NaiveDate, u64)> = closed
        .iter()
        .filter(|(d, _)| !stored.contains_key(d))
        .collect();
    let only = match also {
        None => Some(String::new()),
        Some(also) => {
            let days: Vec<NaiveDate> = also
                .iter()
                .copied()
                .chain(missing.iter().map(|(d, _)| *d))
                .collect();
            (!days.is_empty())
                .then(|| format!(" AND day IN ({})", list(&days, |d| format!("'{d}'"))))
        }
    };
    let computed: HashMap<NaiveDate, Vec<i64>> = match only {
        None => HashMap::new(),
        Some(only) => read
            .client
            .rows::<Reached>(&computed(read, steps, &only))
            .await
            .map_err(failed)?
            .into_iter()
            .map(|r| (r.day, r.reached))
            .collect(),
    };
    let zeros = vec![0; steps.len()];
    let new: Vec<serde_json::Value> = missing
        .iter()
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
    Ok(stored.into_values().chain(computed.into_values()).collect())
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
fn computed(read: &Read<'_>, steps: &[Condition], only: &str) -> String {
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
