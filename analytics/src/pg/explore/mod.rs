//! Filtered reads and funnels, answered from the project's events held in the api's memory as
//! columns (`day::Day`), one entry per UTC day, instead of from SQL over the raw rows: a scan of
//! ten million events in memory takes tens of milliseconds where Postgres takes seconds
//! (docs/analytics.md, "Storage and cost").
//!
//! A day is loaded from the raw events once and kept while its events cannot change:
//! - the summaries' seal (`analytics_seals.sealed`) says up to where a day's events are final:
//!   an event stored behind it marks the project's day dirty and bumps its `generation` in the same
//!   transaction (`store::insert`). So the events before the seal are kept, keyed by the
//!   generation, and only what the seal has advanced over since is loaded on the next read;
//! - the events after the seal (the last seconds of today) are read fresh every time;
//! - a dirty day is read whole, and kept again once the roller has summarised it afresh.
//!
//! Memory is bounded (`SHIPMATE_ANALYTICS_MEMORY_MB`), the dictionaries included: the days read
//! longest ago go first, and a project's dictionary with its last day (`memory`).

pub mod day;
pub mod journeys;
mod memory;
pub mod revenue;
pub mod scan;

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use futures::{StreamExt, TryStreamExt};
use sqlx::{PgPool, Row as _};
use uuid::Uuid;

use self::day::{Day, Ev, Paid, COLUMNS};
use self::memory::{lock, Kept, Project, EXPLORER};
use crate::days;
use crate::query::{Dim, Filters};
use shipmate_core::AppResult;

pub use self::memory::set_memory_budget;
pub use self::scan::Step;

/// A day's state in the summaries: up to where its events are final, and as of which change.
struct Sealed {
    sealed: DateTime<Utc>,
    dirty: bool,
    generation: i64,
}

/// The events a read covers: the days of the range up to `until`, and how to name their codes.
pub struct Snapshot {
    project: Arc<Project>,
    /// From the range's first day on, one per day.
    days: Arc<Vec<Arc<Day>>>,
    /// Codes seen when it was taken: every code in `days` is below.
    codes: usize,
}

/// What to fetch for a day: its kept events and the ranges still to load.
struct Plan {
    day: NaiveDate,
    kept: Option<Arc<Day>>,
    /// Loaded and kept (from the kept part's end, or the day's start, to the seal).
    keep: Option<(DateTime<Utc>, DateTime<Utc>, i64)>,
    /// Loaded for this read only: from the seal (or the day's start) to the read's end.
    fresh: Option<(DateTime<Utc>, DateTime<Utc>)>,
    /// The kept events reach past the read's end (a day closed early), so some are left out.
    trim: bool,
}

impl Snapshot {
    /// The project's events of `[start, end]` before `until`.
    pub async fn take(
        db: &PgPool,
        project_id: Uuid,
        start: NaiveDate,
        end: NaiveDate,
        until: DateTime<Utc>,
    ) -> AppResult<Snapshot> {
        let project = EXPLORER.project(project_id);
        let loading = project.loading.lock().await;
        let states: HashMap<NaiveDate, Sealed> = sqlx::query!(
            r#"select s.day, s.sealed, coalesce(r.dirty, false) as "dirty!", coalesce(r.generation, 0) as "generation!"
               from analytics_seals s
               left join analytics_rollups r on r.project_id = $3 and r.day = s.day
               where s.day >= $1 and s.day <= $2"#,
            start,
            end,
            project_id
        )
        .fetch_all(db)
        .await?
        .into_iter()
        .map(|r| {
            let state = Sealed { sealed: r.sealed, dirty: r.dirty, generation: r.generation };
            (r.day, state)
        })
        .collect();
        let mut plans = Vec::new();
        let mut day = start;
        while day <= end && days::bounds(day).0 < until {
            plans.push(plan(&project, day, states.get(&day), until));
            day += Duration::days(1);
        }
        let labels = if plans.iter().any(|p| p.keep.is_some() || p.fresh.is_some()) {
            labels(db).await?
        } else {
            HashMap::new()
        };
        let source = &Source {
            db,
            project_id,
            project: &project,
            labels,
        };
        let days: Vec<Vec<Arc<Day>>> = futures::stream::iter(runs(plans))
            .map(|run| async move {
                match run {
                    Run::Kept(plan) => Ok(vec![realise(source, plan, until).await?]),
                    Run::Fresh(from, to) => fresh_days(source, from, to).await,
                }
            })
            .buffered(4)
            .try_collect()
            .await?;
        let days: Vec<Arc<Day>> = days.into_iter().flatten().collect();
        drop(loading);
        EXPLORER.evict();
        let codes = project
            .dict
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values
            .len();
        Ok(Snapshot {
            project,
            days: Arc::new(days),
            codes,
        })
    }

    /// The filters as column codes (`None` when a value never occurs: nothing matches).
    pub fn matcher(&self, filters: &Filters) -> scan::Matcher {
        filters
            .0
            .iter()
            .map(|(dim, value)| Some((column(*dim), self.code(value)?)))
            .collect()
    }

    pub fn code(&self, value: &str) -> Option<u32> {
        let dict = self.project.dict.read().unwrap_or_else(|e| e.into_inner());
        dict.codes.get(value).copied()
    }

    /// The value a code stands for.
    pub fn value(&self, code: u32) -> String {
        let dict = self.project.dict.read().unwrap_or_else(|e| e.into_inner());
        dict.values[code as usize].to_string()
    }

    /// Rows of (code, a, b) named, largest `a` first, then `b`, then by name; at most 100.
    pub fn named(&self, rows: Vec<(u32, i64, i64)>) -> Vec<(String, i64, i64)> {
        let dict = self.project.dict.read().unwrap_or_else(|e| e.into_inner());
        let mut rows: Vec<(String, i64, i64)> = rows
            .into_iter()
            .map(|(c, a, b)| (dict.values[c as usize].to_string(), a, b))
            .collect();
        rows.sort_unstable_by(|x, y| y.1.cmp(&x.1).then(y.2.cmp(&x.2)).then(x.0.cmp(&y.0)));
        rows.truncate(100);
        rows
    }

    /// Runs a scan of the days (and the number of codes) off the async threads.
    pub async fn run<T: Send + 'static>(
        &self,
        scan: impl FnOnce(&[Arc<Day>], usize) -> T + Send + 'static,
    ) -> AppResult<T> {
        let (days, codes) = (self.days.clone(), self.codes);
        Ok(tokio::task::spawn_blocking(move || scan(&days, codes))
            .await
            .map_err(anyhow::Error::from)?)
    }
}

/// A filter dimension's column in a `Day`.
pub fn column(dim: Dim) -> usize {
    Dim::ALL.iter().position(|d| *d == dim).unwrap_or(day::NAME)
}

/// The column of a dimension named by its query parameter (`page`, `event`, ...).
pub fn column_named(param: &str) -> usize {
    Dim::ALL
        .iter()
        .position(|d| d.param() == param)
        .unwrap_or(day::NAME)
}

fn plan(project: &Project, day: NaiveDate, state: Option<&Sealed>, until: DateTime<Utc>) -> Plan {
    let (start, end) = days::bounds(day);
    let end = end.min(until);
    let mut plan = Plan {
        day,
        kept: None,
        keep: None,
        fresh: None,
        trim: false,
    };
    let Some(state) = state.filter(|s| !s.dirty) else {
        plan.fresh = Some((start, end));
        return plan;
    };
    let seal = state.sealed.min(days::bounds(day).1);
    let mut days = lock(&project.days);
    match days.get_mut(&day) {
        Some(k) if k.generation == state.generation && k.upto <= seal => {
            k.used = EXPLORER.tick();
            plan.kept = Some(k.day.clone());
            if k.upto < seal {
                plan.keep = Some((k.upto, seal, state.generation));
            }
        }
        _ => plan.keep = Some((start, seal, state.generation)),
    }
    if seal < end {
        plan.fresh = Some((seal, end));
    }
    plan.trim = seal > until;
    plan
}

impl Plan {
    /// Read whole and not kept: a dirty day, or one the summaries have not reached.
    fn fresh_only(&self) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
        match (&self.kept, &self.keep) {
            (None, None) => self.fresh,
            _ => None,
        }
    }
}

/// Days to load: one kept (or to keep), or a run of consecutive days read whole and not kept,
/// loaded with one query (the days before the summaries begin cost one statement, not one each).
enum Run {
    Kept(Plan),
    Fresh(DateTime<Utc>, DateTime<Utc>),
}

fn runs(plans: Vec<Plan>) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for plan in plans {
        match (plan.fresh_only(), runs.last_mut()) {
            (Some((from, to)), Some(Run::Fresh(_, end))) if *end == from => *end = to,
            (Some((from, to)), _) => runs.push(Run::Fresh(from, to)),
            (None, _) => runs.push(Run::Kept(plan)),
        }
    }
    runs
}

/// The days of `[from, to)` (whole UTC days, the last maybe cut short), loaded at once.
async fn fresh_days(
    source: &Source<'_>,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> AppResult<Vec<Arc<Day>>> {
    let events = load(source, from, to).await?;
    const DAY: i64 = 86_400_000_000;
    let first = from.timestamp_micros();
    let count = ((to.timestamp_micros() - first - 1).div_euclid(DAY) + 1).max(0) as usize;
    Ok(tokio::task::spawn_blocking(move || {
        let mut per_day: Vec<Vec<Ev>> = vec![Vec::new(); count];
        for e in events {
            per_day[((e.ts - first) / DAY) as usize].push(e);
        }
        per_day
            .into_iter()
            .map(|e| Arc::new(Day::build(e)))
            .collect()
    })
    .await
    .map_err(anyhow::Error::from)?)
}

/// Where a snapshot's missing events come from, and where they go.
struct Source<'a> {
    db: &'a PgPool,
    project_id: Uuid,
    project: &'a Project,
    /// Label codes of device, browser and OS.
    labels: HashMap<i16, String>,
}

/// Label codes of device, browser and OS.
async fn labels(db: &PgPool) -> AppResult<HashMap<i16, String>> {
    Ok(sqlx::query!("select id, label from analytics_labels")
        .fetch_all(db)
        .await?
        .into_iter()
        .map(|r| (r.id, r.label))
        .collect())
}

/// Loads what `plan` lacks, keeps what may be kept, and returns the day as the read sees it.
async fn realise(source: &Source<'_>, plan: Plan, until: DateTime<Utc>) -> AppResult<Arc<Day>> {
    let mut base = plan.kept;
    if let Some((from, to, generation)) = plan.keep {
        let events = load(source, from, to).await?;
        let prior = base.take();
        let day = tokio::task::spawn_blocking(move || match prior {
            Some(prior) => prior.with(&events, to),
            None => Day::build(events),
        })
        .await
        .map_err(anyhow::Error::from)?;
        let day = Arc::new(day);
        lock(&source.project.days).insert(
            plan.day,
            Kept {
                generation,
                upto: to,
                day: day.clone(),
                used: EXPLORER.tick(),
            },
        );
        base = Some(day);
    }
    let fresh = match plan.fresh {
        Some((from, to)) => load(source, from, to).await?,
        None => Vec::new(),
    };
    match base {
        Some(base) if fresh.is_empty() && !plan.trim => Ok(base),
        base => Ok(Arc::new(
            tokio::task::spawn_blocking(move || match base {
                Some(base) => base.with(&fresh, until),
                None => Day::build(fresh),
            })
            .await
            .map_err(anyhow::Error::from)?,
        )),
    }
}

/// The columns in `Dim::ALL` order, then the revenue, as selected by `load`.
const SELECT: &str =
    "select visitor, ts, path, referrer_host, country, device, browser, os, utm_source, utm_medium,
        utm_campaign, name, revenue_micros, revenue_currency
     from analytics_events where project_id = $1 and ts >= $2 and ts < $3";

/// The project's events in `[from, to)`, their values interned: first in a dictionary of their
/// own, then into the project's under one lock.
async fn load(source: &Source<'_>, from: DateTime<Utc>, to: DateTime<Utc>) -> AppResult<Vec<Ev>> {
    if from >= to {
        return Ok(Vec::new());
    }
    let mut local: HashMap<String, u32> = HashMap::new();
    let mut intern = |v: Option<&str>| match v {
        None => 0,
        Some(v) => match local.get(v) {
            Some(&c) => c,
            None => {
                let c = local.len() as u32 + 1;
                local.insert(v.to_owned(), c);
                c
            }
        },
    };
    let mut events = Vec::new();
    let mut rows = sqlx::query(SELECT)
        .bind(source.project_id)
        .bind(from)
        .bind(to)
        .fetch(source.db);
    while let Some(row) = rows.try_next().await? {
        let mut codes = [0u32; COLUMNS];
        for (c, code) in codes.iter_mut().enumerate() {
            let at = c + 2;
            *code = if (3..=5).contains(&c) {
                let label: i16 = row.try_get(at)?;
                intern(source.labels.get(&label).map(String::as_str))
            } else {
                intern(row.try_get::<Option<&str>, _>(at)?)
            };
        }
        let ts: DateTime<Utc> = row.try_get(1)?;
        let micros: Option<i64> = row.try_get(COLUMNS + 2)?;
        let currency: Option<&str> = row.try_get(COLUMNS + 3)?;
        events.push(Ev {
            visitor: row.try_get(0)?,
            ts: ts.timestamp_micros(),
            codes,
            paid: micros.zip(currency).map(|(micros, c)| Paid {
                micros,
                currency: intern(Some(c)),
            }),
        });
    }
    let map = source.project.intern(&local);
    for e in &mut events {
        for code in &mut e.codes {
            *code = map[*code as usize];
        }
        if let Some(paid) = &mut e.paid {
            paid.currency = map[paid.currency as usize];
        }
    }
    Ok(events)
}
