//! The open day's ended visits, kept as the day goes. An unfiltered read of today's visits (the
//! overview's durations and bounces, entry and exit pages) cut every visitor day of today from
//! its events, work that grows with the day: at 10 M events over 90 days about 60 ms of such a
//! read by midday, at 100 M most of its 0.4-0.6 s. The workers' upkeep now writes the visits of
//! the day in progress that ended at least 30 minutes before a cutoff to `open_visits` (step 7), in
//! steps ten minutes apart, each adding those ended since the step before it (`prev`) under its
//! run; `open_cuts` names each step with its cutoff and the events before it. A read takes those
//! rows, and cuts only the visitor days with an event since 30 minutes before the cutoff, keeping
//! their visits that end after it.
//!
//! The two parts are the day's visits, each once: a visit whose last event is 30 minutes before
//! the cutoff is whole (an event after it starts a new visit), and one whose last event is later
//! has an event in the visitor days the read cuts. A step is only taken while the events before
//! its cutoff are the ones it counted: an event stored late (before the cutoff, after the step)
//! makes reads cut the whole day again, and the next round start the steps over. A day's first
//! step drops the day before yesterday's rows (summarised by then, as closed days are).

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Deserialize;

use super::client::{quote, Client};
use super::sql::{cut, days_of, GAP_MICROS};
use super::summaries::EVENTS_PER_CUT;

/// The steps' visits, under each step's run.
pub const VISITS: &str = "open_visits";
/// The steps: per day, each one's run, the run it adds to (0 for none), its cutoff and the
/// events before it when it was made.
pub const CUTS: &str = "open_cuts";
/// The steps' spacing, in microseconds.
const STEP_MICROS: i64 = 10 * 60 * 1_000_000;
/// How far behind `upto` a cutoff stays, as the closed days' summaries do (events still queued).
const MARGIN_MINUTES: i64 = 5;

#[derive(Deserialize)]
struct Step {
    run: u64,
    prev: u64,
    cutoff: u64,
    events: u64,
    /// The events before the newest step's cutoff now (reads).
    #[serde(default)]
    held: u64,
}

#[derive(Deserialize)]
struct Counts {
    before: u64,
    events: u64,
}

/// Adds the open day's visits ended since its last step, up to the newest cutoff before `upto`
/// (all of them when its steps start over).
pub async fn keep(client: &Client, upto: DateTime<Utc>) -> anyhow::Result<()> {
    let at = upto - Duration::minutes(MARGIN_MINUTES);
    let day = at.date_naive();
    let cutoff = at.timestamp_micros().div_euclid(STEP_MICROS) * STEP_MICROS;
    let start = crate::days::bounds(day).0.timestamp_micros();
    if cutoff - (GAP_MICROS as i64) <= start {
        return Ok(());
    }
    let cutoff = cutoff as u64;
    let steps: Vec<Step> = client
        .rows(&format!(
            "SELECT run, prev, cutoff, events FROM {CUTS} WHERE day = '{day}'"
        ))
        .await?;
    let last = steps.iter().max_by_key(|s| s.run);
    // The events before the last step's cutoff and before this one, counted at once: the step
    // adds to the last only if the events it saw are all still there, and no others.
    let counts: Vec<Counts> = client
        .rows(&format!(
            "SELECT countIf(t < {}) AS before, countIf(t < {cutoff}) AS events FROM events
             WHERE day = '{day}'",
            last.map_or(0, |l| l.cutoff)
        ))
        .await?;
    let Some(counts) = counts.first() else {
        return Ok(());
    };
    let (prev, since) = match last {
        Some(l) if l.events == counts.before && l.cutoff >= cutoff => return Ok(()),
        Some(l) if l.events == counts.before => (l.run, l.cutoff),
        _ => (0, 0),
    };
    let run = Utc::now().timestamp_micros();
    // Only visitor days with an event since 30 minutes before the last cutoff can hold a visit
    // that ended after it.
    let active = match since {
        0 => String::new(),
        since => format!(
            " AND cityHash64(day, visitor) IN (SELECT cityHash64(day, visitor) FROM events
               WHERE day = '{day}' AND t >= {} AND t < {cutoff})",
            since - GAP_MICROS
        ),
    };
    let parts = counts.events / EVENTS_PER_CUT + 1;
    for part in 0..parts {
        let events = format!(
            "day = '{day}' AND t < {cutoff} AND intHash64(visitor) % {parts} = {part}{active}"
        );
        client
            .execute(&format!(
                "INSERT INTO {VISITS} (project_id, day, visitor, started, ended, page_views, entry, exit, run)
                 SELECT project_id, day, visitor, started, ended, page_views, entry, exit, toUInt64({run})
                 FROM ({}) WHERE page_views > 0 AND ended + {GAP_MICROS} <= {cutoff}
                   AND ended + {GAP_MICROS} > {since}",
                cut(&days_of(&events, "1", false), false)
            ))
            .await?;
    }
    client
        .execute(&format!(
            "INSERT INTO {CUTS} (day, run, prev, cutoff, events)
             VALUES ('{day}', {run}, {prev}, {cutoff}, {})",
            counts.events
        ))
        .await?;
    // A day's first step: the day before yesterday is summarised, its steps unread from here on.
    // On a cluster a drop waits for every server (ZooKeeper queues it for one that is down, up to
    // `distributed_ddl_task_timeout`), so the round does not wait for it.
    if last.is_none() {
        let (client, old) = (client.clone(), day - Duration::days(2));
        tokio::spawn(async move {
            if let Err(e) = forget_day(&client, old).await {
                tracing::warn!(error = %format!("{e:#}"), %old, "the open day's rows are not dropped yet");
            }
        });
    }
    Ok(())
}

/// Drops `day`'s partitions of both tables (on a cluster, on every server, as `forget` deletes).
async fn forget_day(client: &Client, day: NaiveDate) -> anyhow::Result<()> {
    for table in [VISITS, CUTS] {
        let table = match (&client.cluster, table) {
            (None, _) => table.to_owned(),
            (Some(c), VISITS) => format!("{table}_local ON CLUSTER {c}"),
            (Some(c), _) => format!("{table} ON CLUSTER {c}"),
        };
        client
            .execute(&format!("ALTER TABLE {table} DROP PARTITION '{day}'"))
            .await?;
    }
    Ok(())
}

/// The ended visits of the open day a read takes: the day, the newest step's cutoff, and the
/// runs of its steps back to the first.
pub struct Ended {
    day: NaiveDate,
    cutoff: u64,
    runs: Vec<u64>,
}

impl Ended {
    /// The newest step of `day` before `until` (a read's end), if the events before its cutoff
    /// are the ones it counted.
    pub async fn of(
        client: &Client,
        day: NaiveDate,
        until: DateTime<Utc>,
    ) -> anyhow::Result<Option<Ended>> {
        let steps = format!(
            "{CUTS} WHERE day = '{day}' AND cutoff <= {}",
            until.timestamp_micros()
        );
        let steps: Vec<Step> = client
            .rows(&format!(
                "SELECT run, prev, cutoff, events,
                        (SELECT count() FROM events WHERE day = '{day}' AND t <
                            (SELECT argMax(cutoff, run) FROM {steps})) AS held
                 FROM {steps}"
            ))
            .await?;
        let Some(last) = steps.iter().max_by_key(|s| s.run) else {
            return Ok(None);
        };
        if last.events != last.held {
            return Ok(None);
        }
        let mut runs = vec![last.run];
        let mut prev = last.prev;
        while prev != 0 {
            match steps.iter().find(|s| s.run == prev) {
                Some(s) if runs.len() < steps.len() => {
                    runs.push(s.run);
                    prev = s.prev;
                }
                _ => return Ok(None),
            }
        }
        Ok(Some(Ended {
            day,
            cutoff: last.cutoff,
            runs,
        }))
    }

    /// The condition that keeps, of the read's events (`events`, a condition on them), this
    /// day's only in the visitor days with an event since 30 minutes before the cutoff.
    pub fn active(&self, events: &str) -> String {
        format!(
            " AND (day != '{d}' OR cityHash64(day, visitor) IN (SELECT cityHash64(day, visitor)
               FROM events WHERE {events} AND day = '{d}' AND t >= {since}))",
            d = self.day,
            since = self.cutoff - GAP_MICROS
        )
    }

    /// Visits (`sql::cut`'s columns a visit read counts) of events kept by `active`, this day's
    /// that ended by the cutoff replaced by the steps' rows of `project`.
    pub fn with_ended(&self, project: &str, visits: &str) -> String {
        format!(
            "SELECT day, visitor, started, ended, page_views, hit, entry, exit FROM ({visits})
             WHERE day != '{d}' OR ended + {GAP_MICROS} > {cutoff}
             UNION ALL
             SELECT day, visitor, started, ended, page_views, toUInt8(1) AS hit, entry, exit
             FROM {VISITS} WHERE project_id = {p} AND day = '{d}' AND run IN ({runs})",
            d = self.day,
            cutoff = self.cutoff,
            p = quote(project),
            runs = super::sql::list(&self.runs, |r| r.to_string()),
        )
    }
}
