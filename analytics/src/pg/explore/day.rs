//! One project's events of one UTC day in memory, as columns: sorted by visitor and time, so a
//! visitor's events (and so their visits) are one run, and a read counts distinct visitors by
//! noticing where a run starts.

use chrono::{DateTime, Utc};

/// The columns, in the order of `query::Dim::ALL` (the event name last). Codes index the
/// project's `Dict`; 0 is "none".
pub const COLUMNS: usize = 10;
pub const PAGE: usize = 0;
pub const REFERRER: usize = 1;
pub const NAME: usize = 9;
/// The code of `page_view`, interned first in every project's dictionary.
pub const PAGE_VIEW: u32 = 1;

/// An event as loaded, its strings interned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ev {
    pub visitor: i64,
    /// Microseconds since the epoch.
    pub ts: i64,
    pub codes: [u32; COLUMNS],
    pub paid: Option<Paid>,
}

/// Revenue an event carries: millionths of the currency, and the currency's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paid {
    pub micros: i64,
    pub currency: u32,
}

#[cfg(test)]
impl Ev {
    /// An event of `visitor` at `secs` with the codes `set` as (column, code), the rest 0.
    pub fn of(visitor: i64, secs: i64, set: &[(usize, u32)]) -> Ev {
        let mut codes = [0; COLUMNS];
        for &(col, code) in set {
            codes[col] = code;
        }
        Ev {
            visitor,
            ts: secs * 1_000_000,
            codes,
            paid: None,
        }
    }
}

/// A visit: a visitor's events with gaps under 30 minutes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Visit {
    pub page_views: u32,
    /// From its first event to its last, whole seconds.
    pub seconds: i64,
    /// Its first and last page views' paths (0: none).
    pub entry: u32,
    pub exit: u32,
}

/// A new visit starts after this long without events (`visits::GAP`).
const GAP_MICROS: i64 = 30 * 60 * 1_000_000;

#[derive(Debug, Default)]
pub struct Day {
    /// Per visitor: their hash, and where their events start (one more entry: the end).
    pub hashes: Vec<i64>,
    pub runs: Vec<u32>,
    pub ts: Vec<i64>,
    pub cols: [Vec<u32>; COLUMNS],
    /// Per visit, in event order; `visit_runs` as `runs`, over events.
    pub visits: Vec<Visit>,
    pub visit_runs: Vec<u32>,
    /// The few events that carry revenue: (event index, what it carries), by index. Kept apart
    /// so revenue by source needs no statement and the common event no column of its own.
    pub paid: Vec<(u32, Paid)>,
}

impl Day {
    /// Columns of `events` (in any order).
    pub fn build(mut events: Vec<Ev>) -> Day {
        events.sort_unstable_by_key(|e| (e.visitor, e.ts));
        let n = events.len();
        let mut day = Day {
            ts: Vec::with_capacity(n),
            cols: std::array::from_fn(|_| Vec::with_capacity(n)),
            ..Day::default()
        };
        let mut visit = Visit::default();
        let mut visit_start = 0i64;
        for (i, e) in events.iter().enumerate() {
            let prev = i.checked_sub(1).map(|p| &events[p]);
            let new_visitor = prev.is_none_or(|p| p.visitor != e.visitor);
            if new_visitor {
                day.hashes.push(e.visitor);
                day.runs.push(i as u32);
            }
            if new_visitor || prev.is_some_and(|p| e.ts - p.ts >= GAP_MICROS) {
                if i > 0 {
                    day.visits.push(visit);
                }
                day.visit_runs.push(i as u32);
                visit = Visit::default();
                visit_start = e.ts;
            }
            visit.seconds = (e.ts - visit_start) / 1_000_000;
            if e.codes[NAME] == PAGE_VIEW {
                visit.page_views += 1;
                if e.codes[PAGE] != 0 {
                    if visit.entry == 0 {
                        visit.entry = e.codes[PAGE];
                    }
                    visit.exit = e.codes[PAGE];
                }
            }
            if let Some(paid) = e.paid {
                day.paid.push((i as u32, paid));
            }
            day.ts.push(e.ts);
            for (col, code) in day.cols.iter_mut().zip(e.codes) {
                col.push(code);
            }
        }
        if n > 0 {
            day.visits.push(visit);
        }
        day.runs.push(n as u32);
        day.visit_runs.push(n as u32);
        day
    }

    pub fn len(&self) -> usize {
        self.ts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }

    /// The events back as rows, in the day's order.
    pub fn events(&self) -> Vec<Ev> {
        let mut out = Vec::with_capacity(self.len());
        let mut paid = self.paid.iter().peekable();
        for (v, run) in self.runs.windows(2).enumerate() {
            for i in run[0] as usize..run[1] as usize {
                out.push(Ev {
                    visitor: self.hashes[v],
                    ts: self.ts[i],
                    codes: std::array::from_fn(|c| self.cols[c][i]),
                    paid: paid.next_if(|(at, _)| *at as usize == i).map(|(_, p)| *p),
                });
            }
        }
        out
    }

    /// This day with `more` events, or only those before `until`.
    pub fn with(&self, more: &[Ev], until: DateTime<Utc>) -> Day {
        let until = until.timestamp_micros();
        let mut events = self.events();
        events.extend_from_slice(more);
        events.retain(|e| e.ts < until);
        Day::build(events)
    }

    /// Bytes held, about.
    pub fn bytes(&self) -> usize {
        self.len() * (8 + 4 * COLUMNS)
            + self.hashes.len() * 12
            + self.visits.len() * 28
            + self.paid.len() * 24
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(visitor: i64, secs: i64, name: u32, page: u32) -> Ev {
        Ev::of(visitor, secs, &[(NAME, name), (PAGE, page)])
    }

    #[test]
    fn runs_and_visits_follow_visitors_and_gaps() {
        // Visitor 2: a visit of two page views, then one after 31 minutes; visitor 1: a custom
        // event only.
        let day = Day::build(vec![
            ev(2, 100, 1, 5),
            ev(1, 50, 7, 0),
            ev(2, 160, 1, 6),
            ev(2, 100 + 60 * 31 + 60, 1, 5),
        ]);
        assert_eq!(day.hashes, vec![1, 2]);
        assert_eq!(day.runs, vec![0, 1, 4]);
        assert_eq!(day.visit_runs, vec![0, 1, 3, 4]);
        let v: Vec<(u32, i64, u32, u32)> = day
            .visits
            .iter()
            .map(|v| (v.page_views, v.seconds, v.entry, v.exit))
            .collect();
        assert_eq!(v, vec![(0, 0, 0, 0), (2, 60, 5, 6), (1, 0, 5, 5)]);
        let again = Day::build(day.events());
        assert_eq!(again.ts, day.ts);
    }

    #[test]
    fn revenue_follows_its_event_through_sorting_and_back() {
        let paid = |micros| {
            Some(Paid {
                micros,
                currency: 3,
            })
        };
        let mut late = ev(2, 200, 7, 0);
        late.paid = paid(5);
        let mut early = ev(1, 300, 7, 0);
        early.paid = paid(9);
        let day = Day::build(vec![late, ev(2, 100, 1, 5), early, ev(1, 50, 1, 5)]);
        // Sorted: visitor 1 at 50 and 300, visitor 2 at 100 and 200.
        assert_eq!(day.paid, vec![(1, paid(9).unwrap()), (3, paid(5).unwrap())]);
        let back = day.events();
        assert_eq!(back.iter().filter(|e| e.paid.is_some()).count(), 2);
        assert_eq!(back[3], late);
        assert_eq!(Day::build(back).paid, day.paid);
    }
}
