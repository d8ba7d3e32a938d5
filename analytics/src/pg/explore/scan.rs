//! The filtered reads over a snapshot's days: one pass over the columns per read, the days split
//! between the cores. Each figure is counted as the SQL over raw events counts it (`reads`,
//! `visits`, `funnels`): a filter narrows to the matching events, visitors are distinct per day.

use std::collections::BTreeMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::day::{Day, NAME, PAGE, PAGE_VIEW, REFERRER};

/// Exact values to match, as (column, code); `None` when a value was never seen (nothing matches).
pub type Matcher = Option<Vec<(usize, u32)>>;

pub(super) fn hit(day: &Day, filters: &[(usize, u32)], i: usize) -> bool {
    filters.iter().all(|&(c, v)| day.cols[c][i] == v)
}

/// Sums per code: (views, visitors), each visitor once per day and code.
struct Tally {
    counts: Vec<(i64, i64)>,
    /// The visitor run that last counted each code (runs are numbered from 1 per thread).
    last: Vec<u32>,
    run: u32,
}

impl Tally {
    fn new(codes: usize) -> Self {
        Tally {
            counts: vec![(0, 0); codes],
            last: vec![0; codes],
            run: 0,
        }
    }

    fn next_run(&mut self) {
        self.run += 1;
    }

    fn add(&mut self, code: u32, views: i64) {
        let c = code as usize;
        self.counts[c].0 += views;
        if self.last[c] != self.run {
            self.last[c] = self.run;
            self.counts[c].1 += 1;
        }
    }

    fn merge(mut self, other: Tally) -> Tally {
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            a.0 += b.0;
            a.1 += b.1;
        }
        self
    }

    /// Codes with views or visitors, as (code, views, visitors).
    fn rows(self) -> Vec<(u32, i64, i64)> {
        self.counts
            .into_iter()
            .enumerate()
            .filter(|(_, (v, u))| *v > 0 || *u > 0)
            .map(|(c, (v, u))| (c as u32, v, u))
            .collect()
    }
}

/// Runs `per_day` over every day on the cores, each thread with its own `Tally`.
fn tally(days: &[Arc<Day>], codes: usize, per_day: impl Fn(&mut Tally, &Day) + Sync) -> Tally {
    days.par_iter()
        .fold(
            || Tally::new(codes),
            |mut t, day| {
                per_day(&mut t, day);
                t
            },
        )
        .reduce(|| Tally::new(codes), Tally::merge)
}

/// Views and visitors per code of `col` among the matching events: every event for the event
/// name, page views otherwise.
pub fn breakdown(
    days: &[Arc<Day>],
    codes: usize,
    filters: &[(usize, u32)],
    col: usize,
) -> Vec<(u32, i64, i64)> {
    breakdown_of(days, codes, filters, col, |_, _| true)
}

/// `breakdown` among the visitors (of each day) with an event matching `reached`: their page
/// views and, as visitors, a goal's conversions per source.
pub fn converted(
    days: &[Arc<Day>],
    codes: usize,
    filters: &[(usize, u32)],
    reached: &[(usize, u32)],
    col: usize,
) -> Vec<(u32, i64, i64)> {
    breakdown_of(days, codes, filters, col, |day, mut run| {
        run.any(|i| hit(day, reached, i))
    })
}

/// `breakdown` over the visitors whose events (a range of the day's) `keep` lets in.
fn breakdown_of(
    days: &[Arc<Day>],
    codes: usize,
    filters: &[(usize, u32)],
    col: usize,
    keep: impl Fn(&Day, std::ops::Range<usize>) -> bool + Sync,
) -> Vec<(u32, i64, i64)> {
    tally(days, codes, |t, day| {
        let values = &day.cols[col];
        let names = &day.cols[NAME];
        for run in day.runs.windows(2) {
            t.next_run();
            if !keep(day, run[0] as usize..run[1] as usize) {
                continue;
            }
            for i in run[0] as usize..run[1] as usize {
                let code = values[i];
                if code != 0 && (col == NAME || names[i] == PAGE_VIEW) && hit(day, filters, i) {
                    t.add(code, 1);
                }
            }
        }
    })
    .rows()
}

/// Matching page views, and visitors with a matching event.
pub fn totals(days: &[Arc<Day>], filters: &[(usize, u32)]) -> (i64, i64) {
    days.par_iter()
        .map(|day| {
            let (mut views, mut visitors) = (0, 0);
            for run in day.runs.windows(2) {
                let mut seen = false;
                for i in run[0] as usize..run[1] as usize {
                    if hit(day, filters, i) {
                        seen = true;
                        views += i64::from(day.cols[NAME][i] == PAGE_VIEW);
                    }
                }
                visitors += i64::from(seen);
            }
            (views, visitors)
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// Calls `f(visitor run, visit)` for each visit with a page view and a matching event.
fn counted_visits(day: &Day, filters: &[(usize, u32)], mut f: impl FnMut(usize, usize)) {
    for (run, v, events) in visits(day) {
        if day.visits[v].page_views > 0 && events.into_iter().any(|i| hit(day, filters, i)) {
            f(run, v);
        }
    }
}

/// Each visit of the day with its visitor run: (run, visit, its events).
pub(super) fn visits(
    day: &Day,
) -> impl Iterator<Item = (usize, usize, std::ops::Range<usize>)> + '_ {
    let mut run = 0;
    day.visit_runs.windows(2).enumerate().map(move |(v, span)| {
        let (from, to) = (span[0] as usize, span[1] as usize);
        while day.runs[run + 1] as usize <= from {
            run += 1;
        }
        (run, v, from..to)
    })
}

/// Counted visits and their visitors per entry (or exit) page.
pub fn visit_pages(
    days: &[Arc<Day>],
    codes: usize,
    filters: &[(usize, u32)],
    exit: bool,
) -> Vec<(u32, i64, i64)> {
    tally(days, codes, |t, day| {
        let mut current = usize::MAX;
        counted_visits(day, filters, |run, v| {
            if run != current {
                current = run;
                t.next_run();
            }
            let visit = &day.visits[v];
            let page = if exit { visit.exit } else { visit.entry };
            if page != 0 {
                t.add(page, 1);
            }
        });
    })
    .rows()
}

/// Matching page views and visitors per bucket of `unit` microseconds from `from` (microseconds
/// since the epoch), `buckets` of them.
pub fn timeseries(
    days: &[Arc<Day>],
    filters: &[(usize, u32)],
    (from, unit, buckets): (i64, i64, usize),
) -> Vec<(i64, i64)> {
    days.par_iter()
        .fold(
            || vec![(0i64, 0i64); buckets],
            |mut points, day| {
                for run in day.runs.windows(2) {
                    let mut last = usize::MAX;
                    for i in run[0] as usize..run[1] as usize {
                        let b = (day.ts[i] - from).div_euclid(unit);
                        if b < 0 || b as usize >= buckets || !hit(day, filters, i) {
                            continue;
                        }
                        let b = b as usize;
                        points[b].0 += i64::from(day.cols[NAME][i] == PAGE_VIEW);
                        // A run is in time order: a visitor's buckets only grow.
                        if b != last {
                            last = b;
                            points[b].1 += 1;
                        }
                    }
                }
                points
            },
        )
        .reduce(
            || vec![(0, 0); buckets],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    x.0 += y.0;
                    x.1 += y.1;
                }
                a
            },
        )
}

/// A funnel step: a page view of a path (`page`) or an event name, as a code (`None`: never seen).
#[derive(Debug, Clone, Copy)]
pub struct Step {
    pub page: bool,
    pub code: Option<u32>,
}

/// Visitors reaching each step: each step's earliest matching event at or after the step before's.
pub fn funnel(days: &[Arc<Day>], filters: &[(usize, u32)], steps: &[Step]) -> Vec<i64> {
    let matches = |day: &Day, step: &Step, i: usize| match step.code {
        None => false,
        Some(code) if step.page => day.cols[NAME][i] == PAGE_VIEW && day.cols[PAGE][i] == code,
        Some(code) => day.cols[NAME][i] == code,
    };
    days.par_iter()
        .map(|day| {
            let mut reached = vec![0i64; steps.len()];
            for run in day.runs.windows(2) {
                let mut after = i64::MIN;
                for (k, step) in steps.iter().enumerate() {
                    let found = (run[0] as usize..run[1] as usize).find(|&i| {
                        day.ts[i] >= after && matches(day, step, i) && hit(day, filters, i)
                    });
                    match found {
                        Some(i) => {
                            after = day.ts[i];
                            reached[k] += 1;
                        }
                        None => break,
                    }
                }
            }
            reached
        })
        .reduce(
            || vec![0; steps.len()],
            |a, b| a.into_iter().zip(b).map(|(x, y)| x + y).collect(),
        )
}

/// The overview's figures in one pass: matching page views and visitors, views and visitors per
/// page and per referrer, and the counted visits (those with a page view and a matching event):
/// how many, how many bounced, and their durations as (seconds, visits), shortest first.
pub struct Overview {
    pub totals: (i64, i64),
    pub pages: Vec<(u32, i64, i64)>,
    pub referrers: Vec<(u32, i64, i64)>,
    pub visits: (i64, i64, Vec<(i64, i64)>),
}

struct OverviewTally {
    views: i64,
    visitors: i64,
    pages: Tally,
    referrers: Tally,
    visits: i64,
    bounced: i64,
    durations: BTreeMap<i64, i64>,
}

impl OverviewTally {
    fn new(codes: usize) -> Self {
        OverviewTally {
            views: 0,
            visitors: 0,
            pages: Tally::new(codes),
            referrers: Tally::new(codes),
            visits: 0,
            bounced: 0,
            durations: BTreeMap::new(),
        }
    }

    fn day(&mut self, day: &Day, filters: &[(usize, u32)]) {
        let mut current = usize::MAX;
        let mut seen = false;
        for (run, v, events) in visits(day) {
            if run != current {
                current = run;
                self.visitors += i64::from(seen);
                seen = false;
                self.pages.next_run();
                self.referrers.next_run();
            }
            let mut hit_visit = false;
            for i in events {
                if !hit(day, filters, i) {
                    continue;
                }
                hit_visit = true;
                if day.cols[NAME][i] == PAGE_VIEW {
                    self.views += 1;
                    if day.cols[PAGE][i] != 0 {
                        self.pages.add(day.cols[PAGE][i], 1);
                    }
                    if day.cols[REFERRER][i] != 0 {
                        self.referrers.add(day.cols[REFERRER][i], 1);
                    }
                }
            }
            seen |= hit_visit;
            let visit = &day.visits[v];
            if hit_visit && visit.page_views > 0 {
                self.visits += 1;
                self.bounced += i64::from(visit.page_views == 1);
                *self.durations.entry(visit.seconds).or_default() += 1;
            }
        }
        self.visitors += i64::from(seen);
    }

    fn merge(mut self, other: OverviewTally) -> Self {
        self.views += other.views;
        self.visitors += other.visitors;
        self.pages = self.pages.merge(other.pages);
        self.referrers = self.referrers.merge(other.referrers);
        self.visits += other.visits;
        self.bounced += other.bounced;
        for (s, n) in other.durations {
            *self.durations.entry(s).or_default() += n;
        }
        self
    }
}

pub fn overview(days: &[Arc<Day>], codes: usize, filters: &[(usize, u32)]) -> Overview {
    let t = days
        .par_iter()
        .fold(
            || OverviewTally::new(codes),
            |mut t, day| {
                t.day(day, filters);
                t
            },
        )
        .reduce(|| OverviewTally::new(codes), OverviewTally::merge);
    Overview {
        totals: (t.views, t.visitors),
        pages: t.pages.rows(),
        referrers: t.referrers.rows(),
        visits: (t.visits, t.bounced, t.durations.into_iter().collect()),
    }
}
