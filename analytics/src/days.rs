//! UTC days: the unit analytics events are partitioned, summarised and locked by.

use chrono::{DateTime, Duration, NaiveDate, Utc};

/// A UTC day's bounds as timestamps.
pub fn bounds(day: NaiveDate) -> (DateTime<Utc>, DateTime<Utc>) {
    let start = day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
    (start, start + Duration::days(1))
}

/// The advisory lock of a day's summaries: sealing a day for a roll takes it exclusively, storing
/// events of the day shares it, so a roll never misses events whose insert had begun (see
/// `rollup::roll`).
pub const DAY_LOCK: i32 = 7431;

pub fn day_lock_key(day: NaiveDate) -> i32 {
    chrono::Datelike::num_days_from_ce(&day)
}
