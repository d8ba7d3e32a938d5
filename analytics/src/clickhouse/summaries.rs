//! Closed days' figures, made once and kept in `daily`, as PostgreSQL mode's roller keeps its
//! summaries: per project, day and dimension, each value's views and that day's visitors (the
//! visitor hash changes daily, so a range's visitors are the days' sums), and the days' visits
//! (entry and exit pages, durations with bounces). An unfiltered read over 90 days then adds up
//! summary rows and aggregates only the days not summarised (today) from the events. The same
//! figures under each single filter (every value of every dimension an event holds) and each pair
//! of a value with a visitor's country, device, browser or OS (`sql::paired`) are kept in
//! `daily_by`, so a read with one filter, or two of those, is summary rows too; one with others
//! reads the day's events in a copy sorted by one of its filters (`by_filter`).
//!
//! A day whose events changed since its summary (late events, a copy) is summarised again, whole,
//! as a new run; `paired_days` names each day's current run once its rows are all written, so
//! a read sees one whole run of a day and never a part. Nothing is dropped or altered (no DDL,
//! which on a cluster waits for a server that is down); a superseded run's rows stay, unread.

use std::collections::HashMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use futures::{stream, TryStreamExt};
use serde::Deserialize;

use super::by_filter;
use super::client::{quote, Client};
use super::sql::{cut, days_of, dim_condition, list, pair_prefix, paired, visit_paths, VISIT_ROWS};
use super::summary_rows::{filtered_events, filtered_visits, goals, journeys, Under};
use crate::query::{Dim, Filters, Range};

/// Events cut into visits per statement at most: a day is cut in parts of visitors above it.
pub(super) const EVENTS_PER_CUT: u64 = 1_000_000;
/// Events made into filtered rows per statement at most (each event is 110 rows there), their
/// visits' too.
const EVENTS_PER_FILTERED: u64 = 250_000;
/// Events made into rows under pairs per statement at most, their visits' too: an event is about
/// 300 rows there, three times its single filters' 110, most of them in groups of their own
/// (parts of 40,000 of a day of 600,000 stay within the 1.86 GB a statement `large_day` allows).
const EVENTS_PER_PAIRED: u64 = 40_000;
/// Events copied sorted by filter per statement at most: the copy holds a part's events twice in
/// arrays (by visitor, then by visit), about 3.5 KB an event at its peak (a part of 550,000
/// needed more than 1.9 GB, past a 2 GB server's limit for one statement).
const EVENTS_PER_COPY: u64 = 200_000;
/// Days summarised per upkeep round at most, so a first run over a long history takes turns.
const DAYS_PER_ROUND: usize = 31;
/// The summarised days, each with its current run (`schema`: from step 8 on, each run holds the
/// day's rows under pairs, so days summarised before it are summarised again).
pub const DAYS: &str = "paired_days";

#[derive(Deserialize)]
struct Day {
    day: NaiveDate,
    events: u64,
    #[serde(default)]
    run: u64,
}

#[derive(Deserialize)]
struct Held {
    day: NaiveDate,
}

/// The summarised days of one read's range, each with its current run, and the range's other
/// days.
#[derive(Clone)]
pub struct Summarised {
    project: String,
    days: Vec<(NaiveDate, u64)>,
    rest: Vec<NaiveDate>,
    /// The one filter its rows are under (`daily_by`'s condition), empty for `daily`'s.
    by: String,
}

impl Summarised {
    /// No day summarised: everything from the events.
    pub const NONE: Summarised = Summarised {
        project: String::new(),
        days: Vec::new(),
        rest: Vec::new(),
        by: String::new(),
    };

    pub async fn of(client: &Client, project: &str, range: &Range) -> anyhow::Result<Summarised> {
        let rows: Vec<Day> = client
            .rows(&format!(
                "SELECT toString(day) AS day, events, run FROM {DAYS} FINAL
                 WHERE day >= '{}' AND day <= '{}'",
                range.start, range.end
            ))
            .await?;
        let days: Vec<(NaiveDate, u64)> = rows.into_iter().map(|d| (d.day, d.run)).collect();
        let rest = range
            .start
            .iter_days()
            .take_while(|d| *d <= range.end)
            .filter(|d| !days.iter().any(|(s, _)| s == d))
            .collect();
        Ok(Summarised {
            project: project.to_owned(),
            days,
            rest,
            by: String::new(),
        })
    }

    /// The same days' rows under `filters`: `daily_by`'s for one filter, or two of which one is a
    /// visitor's (`sql::paired`); none for the others (no summary holds them).
    pub fn under(&self, filters: &Filters) -> Summarised {
        let by = |fdim: String, fval: &str| Summarised {
            by: format!(" AND fdim = {} AND fval = {}", quote(&fdim), quote(fval)),
            ..self.clone()
        };
        match filters.0.as_slice() {
            [] => self.clone(),
            [(dim, value)] => by(dim.column().to_owned(), value),
            [(a, x), (v, y)] if paired(*a, *v) => by(format!("{}{y}", pair_prefix(*a, *v)), x),
            [(v, y), (a, x)] if paired(*a, *v) => by(format!("{}{y}", pair_prefix(*a, *v)), x),
            _ => Summarised::NONE,
        }
    }

    /// The same range with only the summarised days whose `daily` rows hold `key` under `dim`
    /// summarised, the others left out of it (not moved to `rest`): a read of one event name's
    /// rows skips the days that have none.
    pub async fn holding(&self, client: &Client, dim: &str, key: &str) -> anyhow::Result<Self> {
        if self.days.is_empty() {
            return Ok(self.clone());
        }
        let (days, runs) = self.lists();
        let held: Vec<Held> = client
            .rows(&format!(
                "SELECT DISTINCT toString(day) AS day FROM daily
                 WHERE project_id = {} AND dim = '{dim}' AND key = {} AND day IN ({days}) AND run IN ({runs})",
                quote(&self.project),
                quote(key),
            ))
            .await?;
        Ok(Summarised {
            days: (self.days.iter())
                .filter(|(d, _)| held.iter().any(|h| h.day == *d))
                .copied()
                .collect(),
            ..self.clone()
        })
    }

    /// The summarised days and their runs, as two `IN` lists.
    fn lists(&self) -> (String, String) {
        (
            list(&self.days, |(d, _)| format!("'{d}'")),
            list(&self.days, |(_, r)| r.to_string()),
        )
    }

    /// The summarised days, each with its run.
    pub fn days(&self) -> &[(NaiveDate, u64)] {
        &self.days
    }

    /// The range's days not summarised.
    pub fn rest(&self) -> &[NaiveDate] {
        &self.rest
    }

    /// Rows (key, views, visitors) of one dimension: `live` aggregates the events (given a
    /// condition that keeps the days not summarised, named so the sorting key finds them), the
    /// summaries add theirs, keyed by `key` (an expression of `daily`'s columns).
    pub fn with(&self, dim: &str, key: &str, live: impl Fn(&str) -> String) -> String {
        let (project, by) = (quote(&self.project), &self.by);
        let table = if by.is_empty() { "daily" } else { "daily_by" };
        self.joined(
            |days, runs| {
                format!(
                    "SELECT {key} AS key, views, visitors FROM {table}
                     WHERE project_id = {project} AND dim = '{dim}'{by} AND day IN ({days}) AND run IN ({runs})"
                )
            },
            live,
        )
    }

    /// Rows (key, views, visitors) of the summarised days (`summary`, given their list and their
    /// runs' list) and of the others (`live`, given the condition that keeps them), added up per
    /// key.
    pub fn joined(
        &self,
        summary: impl Fn(&str, &str) -> String,
        live: impl Fn(&str) -> String,
    ) -> String {
        self.summed(
            summary,
            live,
            "sum(views) AS views, sum(visitors) AS visitors",
        )
    }

    /// As `joined`, with other figures: `sums` adds them up per key.
    pub fn summed(
        &self,
        summary: impl Fn(&str, &str) -> String,
        live: impl Fn(&str) -> String,
        sums: &str,
    ) -> String {
        if self.days.is_empty() {
            return live("");
        }
        let rest = match self.rest.as_slice() {
            [] => String::new(),
            days => format!(
                " UNION ALL {}",
                live(&format!(
                    " AND day IN ({})",
                    list(days, |d| format!("'{d}'"))
                ))
            ),
        };
        let (days, runs) = self.lists();
        format!(
            "SELECT key, {sums} FROM ({}{rest}) GROUP BY key",
            summary(&days, &runs),
        )
    }
}

/// Summarises the days closed five minutes before `upto` (events still queued at midnight) that
/// are not summarised, or were from fewer events than they hold now. Returns how many.
pub async fn keep_current(client: &Client, upto: DateTime<Utc>) -> anyhow::Result<usize> {
    let closed = (upto - Duration::minutes(5)).date_naive();
    let held: Vec<Day> = client
        .rows(&format!(
            "SELECT toString(day) AS day, toUInt64(count()) AS events FROM events
             WHERE day < '{closed}' GROUP BY day ORDER BY day"
        ))
        .await?;
    let done: HashMap<NaiveDate, u64> = client
        .rows::<Day>(&format!(
            "SELECT toString(day) AS day, events FROM {DAYS} FINAL"
        ))
        .await?
        .into_iter()
        .map(|d| (d.day, d.events))
        .collect();
    let stale: Vec<Day> = held
        .into_iter()
        .filter(|d| done.get(&d.day) != Some(&d.events))
        .take(DAYS_PER_ROUND)
        .collect();
    for d in &stale {
        summarise(client, d).await?;
    }
    Ok(stale.len())
}

/// One day's summaries as a new run, then named the day's. Two summarisers of one day write two
/// whole runs; the later named wins, and both are right for the events they saw.
async fn summarise(client: &Client, d: &Day) -> anyhow::Result<()> {
    let (day, run) = (d.day, Utc::now().timestamp_micros());
    let insert = |select: String| {
        format!(
            "INSERT INTO daily (project_id, day, dim, key, views, visitors, run)
             SELECT project_id, day, dim, key, views, visitors, toUInt64({run}) FROM ({select})"
        )
    };
    let mut statements = vec![insert(format!(
        "SELECT project_id, day, 'total' AS dim, '' AS key, countIf(name = 'page_view') AS views,
                uniqExact(visitor) AS visitors
         FROM events WHERE day = '{day}' GROUP BY project_id, day"
    ))];
    for dim in Dim::ALL {
        let col = dim.column();
        statements.push(insert(format!(
            "SELECT project_id, day, '{col}' AS dim, {col} AS key, count() AS views,
                    uniqExact(visitor) AS visitors
             FROM events WHERE day = '{day}'{} GROUP BY project_id, day, key",
            dim_condition(dim)
        )));
    }
    // The conditions of the day's parts of at most `most` events, by visitor: a key's rows of
    // two parts add up (no visitor in both).
    let parts_of = |most: u64| {
        let parts = d.events / most + 1;
        (0..parts)
            .map(move |part| format!("day = '{day}' AND intHash64(visitor) % {parts} = {part}"))
    };
    // The filtered rows (ten filters times eleven rows an event) and their visits', the pairs'
    // and goals. The visits under single filters in parts of a million events took 1.8 GB at 1.1 M
    // events and 275,000 visitors a day (two parts of 550,000), close to a 2 GB server's limit.
    for part_of in parts_of(EVENTS_PER_FILTERED) {
        statements.push(filtered_events(&part_of, run, Under::One));
        let visits = cut(&days_of(&part_of, "1", true), true);
        statements.push(filtered_visits(&visits, run, Under::One));
        statements.extend(goals(&part_of, run));
    }
    for part_of in parts_of(EVENTS_PER_PAIRED) {
        statements.push(filtered_events(&part_of, run, Under::Pairs));
        let visits = cut(&days_of(&part_of, "1", true), true);
        statements.push(filtered_visits(&visits, run, Under::Pairs));
    }
    for part_of in parts_of(EVENTS_PER_COPY) {
        statements.push(by_filter::copy(&part_of, run));
    }
    // Visits are cut in larger parts.
    for part_of in parts_of(EVENTS_PER_CUT) {
        let visits = cut(&days_of(&part_of, "1", false), false);
        for (dim, key, views, visitors) in VISIT_ROWS {
            statements.push(insert(format!(
                "SELECT project_id, day, '{dim}' AS dim, {key} AS key, {views} AS views, {visitors} AS visitors
                 FROM ({visits}) WHERE page_views > 0 AND {key} != '' GROUP BY project_id, day, key"
            )));
        }
        statements.push(journeys(&visit_paths(&days_of(&part_of, "1", false)), run));
    }
    // Two at a time: a statement's stages are mostly one thread on 18.16, and the statements are
    // independent inserts under a run no read names yet (the three largest of a day of 111,000
    // events: 4.0 s one after another, 3.2 two at a time on two cores).
    stream::iter(statements.iter().map(Ok))
        .try_for_each_concurrent(2, |sql| client.execute(sql))
        .await?;
    client
        .execute(&format!(
            "INSERT INTO {DAYS} (day, events, run) VALUES ('{day}', {}, {run})",
            d.events
        ))
        .await
}
