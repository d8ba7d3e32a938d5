//! The closed days' events sorted by each filter (`events_by`), for reads with two filters or
//! more that no summary holds (`Summarised::under`: two without a visitor's value, or three):
//! every event once under each value it holds (a dimension's column, when not empty), with its
//! visit's figures beside it, sorted by project, filter, value, day and visitor. Such a read
//! takes its rarest filter's rows, a tenth of the range's events or less for most values, where
//! the events, sorted by day and visitor, would be read whole; summaries of every pair of values
//! would outgrow the events, and 18.16 has no projections. The upkeep writes a day's copy with
//! its summaries, under the day's run; the days not summarised come from the events.
//!
//! To keep it small, the copy holds each event's hour of its UTC day (`hour`: ranges are whole
//! days, and the finest buckets hours) and its visit as a number within the visitor's day
//! (`visit`) with its length in whole seconds (`seconds`), not microseconds.

use chrono::NaiveDate;

use super::client::quote;
use super::sql::{counted_per_day, filter_sql, list, numbered};
use crate::query::{Dim, Filters};

/// The copy's table (schema step 6).
pub const TABLE: &str = "(
    project_id UUID, fdim String, fval String, day Date, visitor Int64, hour UInt8, name String,
    path String, referrer_host String, utm_source String, utm_medium String, utm_campaign String,
    country String, device String, browser String, os String, prop_keys Array(String),
    prop_values Array(String), revenue_micros Int64, revenue_currency String, visit UInt32,
    seconds UInt32, page_views UInt32, entry_page String, exit_page String, run UInt64
)";

/// A day and an hour in microseconds.
const DAY: u64 = 86_400_000_000;
const HOUR: u64 = 3_600_000_000;

/// The events' columns each row of the copy carries as they are, after the event's time.
const CARRIED: [&str; 14] = [
    "name",
    "path",
    "referrer_host",
    "utm_source",
    "utm_medium",
    "utm_campaign",
    "country",
    "device",
    "browser",
    "os",
    "prop_keys",
    "prop_values",
    "revenue_micros",
    "revenue_currency",
];

/// The dimensions by how rare a value of theirs is on a typical site, rarest first: a read takes
/// the copy of its first filter in this order.
const RAREST_FIRST: [Dim; 10] = [
    Dim::Page,
    Dim::UtmCampaign,
    Dim::Referrer,
    Dim::UtmSource,
    Dim::UtmMedium,
    Dim::Event,
    Dim::Country,
    Dim::Os,
    Dim::Browser,
    Dim::Device,
];

/// The statement that writes the copy of the events in `part` (whole visitor days) as run `run`.
pub fn copy(part: &str, run: i64) -> String {
    let carried = CARRIED.join(", ");
    let days = format!(
        "SELECT project_id, day, visitor, arraySort(x -> x.1, groupArray((t, {carried}))) AS evs
         FROM events WHERE {part} GROUP BY project_id, day, visitor"
    );
    // Each visit's figures as `sql::cut` makes them (`ev.1` is the time, `ev.2` the name, `ev.3`
    // the path), with its events.
    let visits = format!(
        "SELECT project_id, day, visitor, vn AS visit,
                toUInt32(intDiv(max(ev.1) - min(ev.1), 1000000)) AS seconds,
                toUInt32(countIf(ev.2 = 'page_view')) AS page_views,
                argMinIf(ev.3, ev.1, ev.2 = 'page_view' AND ev.3 != '') AS entry_page,
                argMaxIf(ev.3, ev.1, ev.2 = 'page_view' AND ev.3 != '') AS exit_page,
                groupArray(ev) AS vevs
         FROM ({}) ARRAY JOIN evs AS ev, vns AS vn
         GROUP BY project_id, day, visitor, vn",
        numbered(&days)
    );
    let events: String = CARRIED
        .iter()
        .enumerate()
        .map(|(k, c)| format!(", e.{} AS {c}", k + 2))
        .collect();
    let filters = Dim::ALL
        .iter()
        .map(|d| format!("('{c}', {c})", c = d.column()))
        .collect::<Vec<_>>()
        .join(", ");
    let visit = "visit, seconds, page_views, entry_page, exit_page";
    format!(
        "INSERT INTO events_by (fdim, fval, project_id, day, visitor, hour, {carried}, {visit}, run)
         SELECT f.1, f.2, project_id, day, visitor, hour, {carried}, {visit}, toUInt64({run})
         FROM (SELECT *, arrayJoin(arrayFilter(x -> x.2 != '', [{filters}])) AS f
               FROM (SELECT project_id, day, visitor, toUInt8(intDiv(e.1 % {DAY}, {HOUR})) AS hour,
                            {visit}{events}
                     FROM ({visits}) ARRAY JOIN vevs AS e))"
    )
}

/// A read's rows of the copy: its project, the filter whose copy it takes, and all its filters
/// (each tested on the copy's rows).
pub struct Sorted<'a> {
    project: String,
    by: (Dim, &'a str),
    filters: &'a Filters,
}

impl<'a> Sorted<'a> {
    /// The rows for a read with `filters`, the rarest one's copy: none with fewer than two.
    pub fn of(project: &str, filters: &'a Filters) -> Option<Sorted<'a>> {
        if filters.0.len() < 2 {
            return None;
        }
        let by = RAREST_FIRST.iter().find_map(|dim| {
            filters
                .0
                .iter()
                .find(|(d, v)| d == dim && !v.is_empty())
                .map(|(d, v)| (*d, v.as_str()))
        })?;
        Some(Sorted {
            project: project.to_owned(),
            by,
            filters,
        })
    }

    /// The copy's rows of the summarised days (`days`) under their runs (`runs`): the filter
    /// they are sorted by.
    fn key_of(&self, (days, runs): (&str, &str)) -> String {
        let (dim, value) = self.by;
        format!(
            "project_id = {} AND fdim = '{}' AND fval = {} AND day IN ({days}) AND run IN ({runs})",
            quote(&self.project),
            dim.column(),
            quote(value),
        )
    }

    /// The copy's events of the summarised days (`days`, their `runs`) that match every filter,
    /// as `table WHERE condition` (a statement may add `AND` conditions), each event at its
    /// hour's start (`t`).
    pub fn rows(&self, days: (&str, &str)) -> String {
        let filters = filter_sql(self.filters);
        format!(
            "(SELECT *, (toUInt64(day) * 24 + hour) * {HOUR} AS t FROM events_by WHERE {})
             WHERE {}",
            self.key_of(days),
            filters.strip_prefix(" AND ").unwrap_or("1")
        )
    }

    /// The read's events as one table, for statements that add the read's conditions
    /// (`matching`) and are not written as rows added up per key (`Read::over`): the
    /// summarised days' (`days`, each with its run) from the copy, the others' (`rest`) from
    /// the events.
    pub fn events(&self, matching: &str, days: &[(NaiveDate, u64)], rest: &[NaiveDate]) -> String {
        let carried = CARRIED.join(", ");
        let rest = match rest {
            [] => String::new(),
            rest => format!(
                " UNION ALL SELECT project_id, day, visitor, t, {carried} FROM events
                  WHERE {matching} AND day IN ({})",
                list(rest, |d| format!("'{d}'"))
            ),
        };
        let summarised = (
            &list(days, |(d, _)| format!("'{d}'"))[..],
            &list(days, |(_, r)| r.to_string())[..],
        );
        format!(
            "(SELECT project_id, day, visitor, t, {carried} FROM {}{rest})",
            self.rows(summarised)
        )
    }

    /// Rows (key, views, visitors) of the visit dimension `dim` (`entry`, `exit` or `duration`)
    /// over the summarised days' (`days`, their `runs`) visits with a page view that hold an
    /// event matching every filter.
    pub fn visit_rows(&self, dim: &str, days: (&str, &str)) -> String {
        let (_, key, views, visitors) = VISIT_ROWS
            .iter()
            .find(|r| r.0 == dim)
            .expect("a visit dimension");
        counted_per_day(
            key,
            views,
            visitors,
            &format!("{} AND page_views > 0 AND {key} != ''", self.rows(days)),
        )
    }
}

/// The visit rows of `sql::VISIT_ROWS` from the copy, by their dimension, each counted per day
/// (`sql::counted_per_day`): each row of the copy is an event, so a day's visits (the visitor day's
/// `visit`) are counted once each.
const VISIT_ROWS: [(&str, &str, &str, &str); 3] = [
    (
        "entry",
        "entry_page",
        "uniqExact(visitor, visit)",
        "uniqExact(visitor)",
    ),
    (
        "exit",
        "exit_page",
        "uniqExact(visitor, visit)",
        "uniqExact(visitor)",
    ),
    (
        "duration",
        "toString(seconds)",
        "uniqExact(visitor, visit)",
        "uniqExactIf(visitor, visit, page_views = 1)",
    ),
];
