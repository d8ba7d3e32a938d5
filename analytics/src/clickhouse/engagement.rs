//! The pages' engagement medians (`crate::engagement`) from the read's raw `engagement` events,
//! filters included, computed as PostgreSQL mode does: the value at rank ⌈n/2⌉ of the sorted
//! whole numbers in range (`quantileExact` would take the upper middle, and `percentile_disc` the
//! lower). The name is read first (`PREWHERE`): engagement events are few, and ClickHouse would
//! otherwise pick a filter's column to read first and scan every event of the range with it (with
//! two filters or more, the copy sorted by one of them is read instead). The caller reads only the
//! days that hold engagement events (`Read::holding`): most sites send none on most days.

use std::collections::HashMap;

use serde::Deserialize;

use super::client::quote;
use super::reads::{failed, Read};
use crate::engagement::{Medians, EVENT};
use shipmate_core::AppResult;

#[derive(Deserialize)]
struct Median {
    path: String,
    /// -1: no value.
    depth: i64,
    ms: i64,
}

/// The lower median of array `a`, -1 when it is empty.
fn lower_median(a: &str) -> String {
    format!("if(empty({a}), -1, arrayElement(arraySort({a}), toUInt64(ceil(length({a}) / 2))))")
}

/// Medians of `pages` (those with engagement events; the rest are absent).
pub async fn medians(read: &Read<'_>, pages: &[String]) -> AppResult<HashMap<String, Medians>> {
    if pages.is_empty() {
        return Ok(HashMap::new());
    }
    let list: Vec<String> = pages.iter().map(|p| quote(p)).collect();
    // A table's rows can be read name first; the copy's union (`Read::events`) cannot.
    let copied = read.sorted().is_some();
    let rows: Vec<Median> = read
        .client
        .rows(&format!(
            "SELECT path, toInt64({depth}) AS depth, toInt64({ms}) AS ms FROM (
                SELECT path,
                       groupArrayIf(toInt64OrZero(d), match(d, '^[0-9]{{1,3}}$') AND toInt64OrZero(d) <= 100) AS depths,
                       groupArrayIf(toInt64OrZero(m), match(m, '^[0-9]{{1,12}}$')) AS mss
                FROM (
                    SELECT path, prop_values[indexOf(prop_keys, 'scroll_depth')] AS d,
                           prop_values[indexOf(prop_keys, 'engaged_ms')] AS m
                    FROM {events} {first} name = {event} {then} {matching} AND path IN ({list})
                ) GROUP BY path
             )",
            depth = lower_median("depths"),
            ms = lower_median("mss"),
            matching = read.matching(),
            events = read.events(),
            first = if copied { "WHERE" } else { "PREWHERE" },
            then = if copied { "AND" } else { "WHERE" },
            event = quote(EVENT),
            list = list.join(", "),
        ))
        .await
        .map_err(failed)?;
    let some = |v: i64| (v >= 0).then_some(v);
    Ok(rows
        .into_iter()
        .map(|m| {
            (
                m.path,
                Medians {
                    scroll_depth: some(m.depth),
                    engaged_ms: some(m.ms),
                },
            )
        })
        .collect())
}
