//! A goal's revenue per source over a snapshot's days (`crate::conversions`): the few visitor
//! days whose goal events carry revenue come summed from the raw events (`pg::conversions`), and
//! each is added to every source of its matching page views that day, once per source.

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::day::{Day, NAME, PAGE_VIEW};
use super::scan::hit;
use crate::seam::RevenueSums;

/// Per day of `days` (same order), its paying visitors as (hash, their sums).
pub type Paid = Vec<Vec<(i64, RevenueSums)>>;

/// The sums per code of `col`.
pub fn attributed(
    days: &[Arc<Day>],
    paid: &Paid,
    filters: &[(usize, u32)],
    col: usize,
) -> HashMap<u32, RevenueSums> {
    days.par_iter()
        .zip(paid.par_iter())
        .fold(HashMap::new, |mut acc, (day, paid)| {
            let mut sources = Vec::new();
            for (hash, sums) in paid {
                // Visitors run in hash order (`Day::build`).
                let Ok(r) = day.hashes.binary_search(hash) else {
                    continue;
                };
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
                    *acc.entry(*code).or_default() += *sums;
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

#[cfg(test)]
mod tests {
    use super::super::day::{Ev, REFERRER};
    use super::*;

    /// The country's column (`query::Dim::ALL`'s order).
    const COUNTRY: usize = 2;

    fn view(visitor: i64, secs: i64, referrer: u32, country: u32) -> Ev {
        Ev::of(
            visitor,
            secs,
            &[(NAME, PAGE_VIEW), (REFERRER, referrer), (COUNTRY, country)],
        )
    }

    fn sums(total: i64) -> RevenueSums {
        RevenueSums {
            total,
            counted: 1,
            skipped: 0,
        }
    }

    #[test]
    fn each_paying_visitor_counts_once_for_every_source_of_its_matching_page_views() {
        // Visitor 1 came from referrers 10 and 11 (10 twice), visitor 2 from 10 in another
        // country, visitor 3 paid but is not in the day, visitor 4 did not pay.
        let day = Arc::new(Day::build(vec![
            view(1, 1, 10, 5),
            view(1, 2, 11, 5),
            view(1, 3, 10, 5),
            view(2, 1, 10, 6),
            view(4, 1, 12, 5),
        ]));
        let paid: Paid = vec![vec![(1, sums(100)), (2, sums(7)), (3, sums(1_000))]];
        let all = attributed(std::slice::from_ref(&day), &paid, &[], REFERRER);
        assert_eq!(
            all.get(&10),
            Some(&RevenueSums {
                total: 107,
                counted: 2,
                skipped: 0
            })
        );
        assert_eq!(all.get(&11), Some(&sums(100)));
        assert_eq!(all.len(), 2);
        // Under a filter only the matching page views name sources.
        let filtered = attributed(&[day], &paid, &[(COUNTRY, 6)], REFERRER);
        assert_eq!(
            filtered.into_iter().collect::<Vec<_>>(),
            vec![(10, sums(7))]
        );
    }
}
