//! Where a read looks: which summary rows (weekly for the range's complete weeks, daily around
//! them) and which raw events (those the summaries do not reach yet) it takes. The week arithmetic
//! and the SQL that reads the summaries live here; the figures are computed in `reads`.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use shipmate_core::AppResult;
use sqlx::PgPool;
use uuid::Uuid;

use super::rollup;
use crate::query::Range;

/// Where a read looks: daily summaries up to where they reach, raw events from there on, up to
/// `until` (now, or the end of the range's last day). The summaries usually reach to a few seconds
/// ago; the raw events since are counted as a summary pass would count them (`rollup::pass`). Each
/// statement takes the reach in its own snapshot (`reach`): `raw_from`, read first, is only its
/// lower bound. A filtered read scans the range's events in memory instead (`explore`).
pub(super) struct Window {
    pub(super) start: NaiveDate,
    pub(super) end: NaiveDate,
    pub(super) raw_from: DateTime<Utc>,
    pub(super) until: DateTime<Utc>,
}

impl Window {
    pub(super) async fn of(db: &PgPool, range: &Range) -> AppResult<Self> {
        let until = range.until(Utc::now());
        let raw_from = rollup::covered_until(db)
            .await?
            .map_or(range.from_ts(), |c| c.max(range.from_ts()));
        Ok(Window {
            start: range.start,
            end: range.end,
            raw_from,
            until,
        })
    }

    pub(super) fn weeks(&self) -> Weeks {
        Weeks::of(self.start, self.end, self.raw_from)
    }

    /// Binds `$2` (first day), `$3` (`raw_from`), `$4` (last day) and `$5` (`until`) after the
    /// project (`$1`).
    pub(super) fn bind<'q, O>(
        &'q self,
        query: sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments>,
        project_id: Uuid,
    ) -> sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments> {
        query
            .bind(project_id)
            .bind(self.start)
            .bind(self.raw_from)
            .bind(self.end)
            .bind(self.until)
    }
}

/// Where the summaries reach, never before `floor`, as the statement that reads them sees it. A
/// roll commits its summary rows and their new reach together, so a statement that takes both from
/// its one snapshot counts every event once, from the summaries or from the raw events after
/// them, even when a roll commits between a read's statements (with a reach read beforehand, the
/// events of that roll were counted twice). Reaches only grow, so `floor` may be one read earlier.
pub(super) fn reach(floor: &str) -> String {
    format!("(select greatest({floor}, max(through)) from analytics_seals)")
}

/// The summary rows of `dim` that a read takes (see `Window`) per value: the range's complete
/// weeks from the weekly summaries, its other days from the daily ones (`weekly_or_daily`).
pub(super) fn summaries(dim: &str, weeks: Weeks) -> String {
    let rows = weekly_or_daily(
        &format!("dim = '{dim}'"),
        ("$2", "$4"),
        Some(&reach("$3")),
        weeks,
    );
    format!(
        "select value, sum(views) as views, sum(visitors) as visitors from ({rows}) s
         group by value"
    )
}

/// The summary rows of `dim` that a read takes (see `Window`) per day and value.
pub(super) fn daily_summaries(dim: &str) -> String {
    let reach = reach("$3");
    format!(
        "select day, value, sum(views) as views, sum(visitors) as visitors from analytics_daily
         where project_id = $1 and dim = '{dim}' and day >= $2 and day <= $4 and day::timestamp at time zone 'UTC' < {reach}
         group by day, value"
    )
}

/// The complete weeks of a read's range, as their first and last Monday (the first after the
/// last when there are none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Weeks(NaiveDate, NaiveDate);

impl Weeks {
    /// The weeks wholly inside `[start, end]` whose days are all summarised before `reach`.
    fn of(start: NaiveDate, end: NaiveDate, reach: DateTime<Utc>) -> Weeks {
        let week = Duration::days(7);
        let first = rollup::week_of(start + Duration::days(6));
        let last_day = end.min(reach.date_naive() - Duration::days(1));
        let last = rollup::week_of(last_day + Duration::days(1)) - week;
        if last < first {
            let after = end + Duration::days(1);
            Weeks(after, after - week)
        } else {
            Weeks(first, last)
        }
    }
}

/// Rows (value, views, visitors) of the summaries matching `which` (on a row of either table) for
/// the days from `first` to `last` (SQL expressions): the weekly rows of `weeks`, the daily rows
/// of the days around them (only those before `reach`, when given: visit summaries of a day still
/// going on count too). A week's rows are written with its Sunday's completion
/// (`rollup::weekly`), and `weeks` are complete, so no day is taken twice or left out.
pub(super) fn weekly_or_daily(
    which: &str,
    (first, last): (&str, &str),
    reach: Option<&str>,
    Weeks(from, to): Weeks,
) -> String {
    let reached = reach.map_or(String::new(), |r| {
        format!(" and day::timestamp at time zone 'UTC' < {r}")
    });
    let daily = |days: String| {
        format!(
            "select value, views, visitors from analytics_daily
             where project_id = $1 and {which} and {days}{reached}"
        )
    };
    format!(
        "select value, views, visitors from analytics_weekly
         where project_id = $1 and {which} and week >= '{from}' and week <= '{to}'
         union all {before} union all {after}",
        before = daily(format!("day >= {first} and day < '{from}'")),
        after = daily(format!("day >= '{to}'::date + 7 and day <= {last}")),
    )
}

/// What the project's raw events from the summaries' reach (`reach`) to `until` add to `dim`, per
/// value (and per day or hour when `by_since`). `$3`, the reach read first, lets the plan skip
/// earlier days' partitions.
pub(super) fn tail(dim: &str, by_since: bool) -> String {
    let reach = reach("$3");
    rollup::pass(
        &[dim],
        &format!("e.project_id = $1 and e.ts >= $3 and e.ts >= {reach} and e.ts < $5"),
        &reach,
        by_since,
        true,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap_or_default()
    }

    #[test]
    fn weeks_are_the_complete_ones_inside_the_range() {
        let reach = |s: &str| day(s).and_hms_opt(10, 0, 0).unwrap_or_default().and_utc();
        // Friday 2026-08-28 to Wednesday 2026-11-25, summarised into the 25th: Mondays 08-31 to
        // 11-16 (its Sunday, the 22nd, is complete; the week of the 23rd is not).
        assert_eq!(
            Weeks::of(day("2026-08-28"), day("2026-11-25"), reach("2026-11-25")),
            Weeks(day("2026-08-31"), day("2026-11-16"))
        );
        // A range starting on a Monday and ending on a complete Sunday is all weeks.
        assert_eq!(
            Weeks::of(day("2026-11-02"), day("2026-11-15"), reach("2026-11-25")),
            Weeks(day("2026-11-02"), day("2026-11-09"))
        );
        // None: the first after the last, so no week and no day between them is taken.
        assert_eq!(
            Weeks::of(day("2026-11-19"), day("2026-11-25"), reach("2026-11-25")),
            Weeks(day("2026-11-26"), day("2026-11-19"))
        );
    }
}
