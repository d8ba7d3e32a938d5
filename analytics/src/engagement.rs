//! Engagement: how far and how long a page is read. `sm.plus.js` sends an `engagement` event when a
//! page is hidden or left, with `scroll_depth` (percent) and `engaged_ms` (the time the page was
//! visible and focused). The `pages` read adds their medians per page; each store computes them
//! from its raw events (`pg::engagement`, `clickhouse::engagement`), both the same way: the lower
//! median (the value at rank ⌈n/2⌉), over the events whose properties are whole numbers in range.

use std::collections::HashMap;

use shipmate_types::analytics::PageRow;

/// The event's name.
pub const EVENT: &str = "engagement";

/// One page's medians as a store finds them: scroll depth in percent, engaged milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Medians {
    pub scroll_depth: Option<i64>,
    pub engaged_ms: Option<i64>,
}

/// Fills the pages' `scroll_depth` and `time_on_page` (whole seconds, half up) from `medians`.
pub fn apply(rows: &mut [PageRow], medians: &HashMap<String, Medians>) {
    for row in rows {
        let m = medians.get(&row.page).copied().unwrap_or_default();
        row.scroll_depth = m.scroll_depth;
        row.time_on_page = m.engaged_ms.map(|ms| (ms + 500) / 1_000);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engaged_time_is_whole_seconds_and_pages_without_events_are_null() {
        let mut rows = vec![
            PageRow::from(("/a".to_owned(), 3, 2)),
            PageRow::from(("/b".to_owned(), 1, 1)),
        ];
        let medians = HashMap::from([(
            "/a".to_owned(),
            Medians {
                scroll_depth: Some(75),
                engaged_ms: Some(12_500),
            },
        )]);
        apply(&mut rows, &medians);
        assert_eq!(
            (rows[0].scroll_depth, rows[0].time_on_page),
            (Some(75), Some(13))
        );
        assert_eq!((rows[1].scroll_depth, rows[1].time_on_page), (None, None));
    }
}
