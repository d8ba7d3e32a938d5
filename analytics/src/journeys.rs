//! Journeys: within visits, the pages viewed right after and right before one page (Plausible's
//! "user journeys"). Counted alike by both stores (`pg::journeys`, `clickhouse::journeys`): the
//! read's counted visits (a page view, and an event matching the filters) that view the page; each
//! visit's page views in order with repeats in a row collapsed (a reload is no step); around each
//! view of the page, the next page or `(exit)` and the previous one or `(entrance)`, each
//! neighbour counted once per visit. Most visits first, then by path; 100 at most each way.

use shipmate_types::analytics::{JourneyRow, Journeys, Period};

/// The neighbour of a view that ended its visit.
pub const EXIT: &str = "(exit)";
/// The neighbour of a view that began its visit.
pub const ENTRANCE: &str = "(entrance)";

/// Most rows each way.
const LIMIT: usize = 100;

/// The answer from each side's (page, visits).
pub fn report(
    period: Period,
    page: &str,
    next: Vec<(String, i64)>,
    previous: Vec<(String, i64)>,
) -> Journeys {
    let rows = |mut list: Vec<(String, i64)>| {
        list.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        list.truncate(LIMIT);
        list.into_iter()
            .map(|(page, visits)| JourneyRow { page, visits })
            .collect()
    };
    Journeys {
        period,
        page: page.to_owned(),
        next: rows(next),
        previous: rows(previous),
    }
}
