//! A goal's revenue per source over a snapshot's days (`crate::conversions`): each day's few
//! revenue-bearing events (`Day::paid`) that match the goal are summed per visitor, and each
//! paying visitor's sums are added to every source of their matching page views that day, once
//! per source.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::day::{Day, NAME, PAGE_VIEW};
use super::scan::hit;
use crate::seam::RevenueSums;

/// The sums per code of `col` of the revenue on events matching `goal` in `currency` (its code;
/// `None`: it never occurs, so every amount is in another currency and skipped).
pub fn attributed(
    days: &[Arc<Day>],
    filters: &[(usize, u32)],
    goal: &[(usize, u32)],
    currency: Option<u32>,
    col: usize,
) -> HashMap<u32, RevenueSums> {
    days.par_iter()
        .fold(HashMap::new, |mut acc, day| {
            let mut sources = Vec::new();
            for (r, sums) in paying(day, goal, currency) {
                sources.clear();
                for i in day.runs[r] as usize..day.runs[r + 1] as usize {
                    let code = day.cols[col][i];
                    if code != 0 && day.cols[NAME][i] == PAGE_VIEW && hit(day, filters, i) {
                        sources.push(code);
                    }
                }
                sources.sort_unstable();
                sources.dedup();
                for code in &sources {
                    *acc.entry(*code).or_default() += sums;
                }
            }
            acc
        })
        .reduce(HashMap::new, |mut a, b| {
            for (code, sums) in b {
                *a.entry(code).or_default() += sums;
            }
            a
        })
}

/// The day's visitors (as their run) whose events matching `goal` carry revenue, with its sums.
fn paying(day: &Day, goal: &[(usize, u32)], currency: Option<u32>) -> Vec<(usize, RevenueSums)> {
    let mut out: Vec<(usize, RevenueSums)> = Vec::new();
    for &(i, paid) in &day.paid {
        if !hit(day, goal, i as usize) {
            continue;
        }
        let same = currency == Some(paid.currency);
        let sums = RevenueSums {
            total: if same { paid.micros } else { 0 },
            counted: i64::from(same),
            skipped: i64::from(!same),
        };
        // `paid` runs in event order, so a visitor's payments are together.
        let r = day.runs.partition_point(|&start| start <= i) - 1;
        match out.last_mut() {
            Some((last, total)) if *last == r => *total += sums,
            _ => out.push((r, sums)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::day::{Ev, Paid, REFERRER};
    use super::*;

    /// The country's column (`query::Dim::ALL`'s order).
    const COUNTRY: usize = 2;
    const SIGNUP: u32 = 20;
    const EUR: u32 = 30;
    const USD: u32 = 31;

    fn view(visitor: i64, secs: i64, referrer: u32, country: u32) -> Ev {
        Ev::of(
            visitor,
            secs,
            &[(NAME, PAGE_VIEW), (REFERRER, referrer), (COUNTRY, country)],
        )
    }

    fn signup(visitor: i64, secs: i64, micros: i64, currency: u32) -> Ev {
        let mut e = Ev::of(visitor, secs, &[(NAME, SIGNUP)]);
        e.paid = Some(Paid { micros, currency });
        e
    }

    fn sums(total: i64, counted: i64, skipped: i64) -> RevenueSums {
        RevenueSums {
            total,
            counted,
            skipped,
        }
    }

    #[test]
    fn each_paying_visitor_counts_once_for_every_source_of_its_matching_page_views() {
        // Visitor 1 came from referrers 10 and 11 (10 twice) and paid twice, once in dollars;
        // visitor 2 came from 10 in another country; visitor 3 paid with no page view; visitor 4
        // did not pay; visitor 5 paid on another goal.
        let mut other_goal = signup(5, 9, 1_000, EUR);
        other_goal.codes[NAME] = SIGNUP + 1;
        let day = Arc::new(Day::build(vec![
            view(1, 1, 10, 5),
            signup(1, 2, 100, EUR),
            view(1, 3, 11, 5),
            view(1, 4, 10, 5),
            signup(1, 5, 50, USD),
            view(2, 1, 10, 6),
            signup(2, 2, 7, EUR),
            signup(3, 1, 1_000, EUR),
            view(4, 1, 12, 5),
            view(5, 1, 12, 5),
            other_goal,
        ]));
        let goal = [(NAME, SIGNUP)];
        let all = attributed(std::slice::from_ref(&day), &[], &goal, Some(EUR), REFERRER);
        assert_eq!(all.get(&10), Some(&sums(107, 2, 1)));
        assert_eq!(all.get(&11), Some(&sums(100, 1, 1)));
        assert_eq!(all.len(), 2);
        // Under a filter only the matching page views name sources.
        let filtered = attributed(
            std::slice::from_ref(&day),
            &[(COUNTRY, 6)],
            &goal,
            Some(EUR),
            REFERRER,
        );
        assert_eq!(
            filtered.into_iter().collect::<Vec<_>>(),
            vec![(10, sums(7, 1, 0))]
        );
        // A currency never seen: every amount is skipped.
        let none = attributed(&[day], &[], &goal, None, REFERRER);
        assert_eq!(none.get(&10), Some(&sums(0, 0, 3)));
    }
}
