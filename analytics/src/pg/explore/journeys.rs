//! Journeys over a snapshot's days (`crate::journeys` says what is counted): each counted visit's
//! page views as a path sequence, repeats in a row collapsed, and around each view of the page the
//! one after and the one before; each neighbour once per visit. Code 0 stands for the visit's end
//! (after) or start (before).

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;

use super::day::{Day, NAME, PAGE, PAGE_VIEW};
use super::scan::{hit, visits};

/// Visits per next page and per previous page of `target`.
pub type Neighbours = (HashMap<u32, i64>, HashMap<u32, i64>);

pub fn journeys(days: &[Arc<Day>], filters: &[(usize, u32)], target: u32) -> Neighbours {
    days.par_iter()
        .fold(Neighbours::default, |mut acc, day| {
            let mut seq: Vec<u32> = Vec::new();
            for (_, v, events) in visits(day) {
                if day.visits[v].page_views == 0 || !events.clone().any(|i| hit(day, filters, i)) {
                    continue;
                }
                seq.clear();
                for i in events {
                    let page = day.cols[PAGE][i];
                    if day.cols[NAME][i] == PAGE_VIEW && page != 0 && seq.last() != Some(&page) {
                        seq.push(page);
                    }
                }
                let (mut next, mut previous) = (Vec::new(), Vec::new());
                for (k, _) in seq.iter().enumerate().filter(|(_, p)| **p == target) {
                    next.push(seq.get(k + 1).copied().unwrap_or(0));
                    previous.push(k.checked_sub(1).map_or(0, |b| seq[b]));
                }
                for (list, counts) in [(&mut next, &mut acc.0), (&mut previous, &mut acc.1)] {
                    list.sort_unstable();
                    list.dedup();
                    for code in list.iter() {
                        *counts.entry(*code).or_default() += 1;
                    }
                }
            }
            acc
        })
        .reduce(Neighbours::default, |mut a, b| {
            for (into, from) in [(&mut a.0, b.0), (&mut a.1, b.1)] {
                for (code, n) in from {
                    *into.entry(code).or_default() += n;
                }
            }
            a
        })
}
