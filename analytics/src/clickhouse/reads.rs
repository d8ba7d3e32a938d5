//! The analytics reads in ClickHouse SQL: each one aggregation over the summarised days' rows
//! (`summaries`; with two filters or more, the copy sorted by filter, `by_filter`) and the other
//! days' events, so nothing is held in the api or warmed up. The figures are defined as PostgreSQL mode's: page views count `page_view` events; visitors
//! are counted per UTC day (the visitor hash changes with the daily salt) and summed.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde::Deserialize;
use shipmate_types::analytics::{
    Breakdown, Interval, Period, Point, PropertyRow, Realtime, RealtimePage, Timeseries,
};
use uuid::Uuid;

use super::by_filter::Sorted;
use super::client::{quote, Client};
use super::sql::{counted_per_day, dim_condition, filter_sql, list};
use super::summaries::Summarised;
use crate::query::{Dim, Filters, ReadQuery};
use crate::seam::{RevenueSums, Row};
use shipmate_core::{AppError, AppResult};

/// A read that failed: 503 when ClickHouse did not answer (the events are safe, the figures wait),
/// 500 when it refused the statement.
pub(super) fn failed(e: anyhow::Error) -> AppError {
    if e.chain().any(|c| c.is::<reqwest::Error>()) {
        AppError::Unavailable(format!("clickhouse: {e:#}"))
    } else {
        AppError::Internal(e)
    }
}

/// One read: its project, what was asked, the instant it stops at, and its summarised days
/// (`summarised`: their unfiltered rows and the copy sorted by filter; `daily`: their rows under
/// the read's filters, when a summary holds them).
pub struct Read<'a> {
    pub(super) client: &'a Client,
    pub(super) project_id: Uuid,
    pub(super) query: &'a ReadQuery,
    pub(super) until: DateTime<Utc>,
    pub(super) summarised: Summarised,
    daily: Summarised,
    /// The days read, when narrowed (`holding`): ` AND day IN (...)`, else empty.
    only: String,
}

impl<'a> Read<'a> {
    /// A read from the events alone.
    pub fn new(client: &'a Client, project_id: Uuid, query: &'a ReadQuery) -> Self {
        Read {
            client,
            project_id,
            query,
            until: query.range.until(Utc::now()),
            summarised: Summarised::NONE,
            daily: Summarised::NONE,
            only: String::new(),
        }
    }

    /// A read that takes closed days from their summaries.
    pub async fn open(
        client: &'a Client,
        project_id: Uuid,
        query: &'a ReadQuery,
    ) -> AppResult<Read<'a>> {
        let mut read = Read::new(client, project_id, query);
        read.summarised = Summarised::of(client, &project_id.to_string(), &query.range)
            .await
            .map_err(failed)?;
        read.daily = read.summarised.under(&query.filters);
        Ok(read)
    }

    /// The same read over the days that may hold event `name`: the summarised days whose
    /// summaries count one, and the days not summarised; none when no day is left. A read of one
    /// event's rows (engagement medians) runs beside the rest of its figures and skips the days
    /// it would find nothing in: a site that sends no such events scans only today's.
    pub(super) async fn holding(&self, name: &str) -> AppResult<Option<Read<'a>>> {
        let summarised =
            (self.summarised.holding(self.client, "name", name).await).map_err(failed)?;
        let days: Vec<NaiveDate> = (summarised.days().iter().map(|(d, _)| *d))
            .chain(summarised.rest().iter().copied())
            .collect();
        let only = match (self.summarised.days().is_empty(), days.is_empty()) {
            // Nothing summarised (a read of the events alone): no day known to skip.
            (true, _) => String::new(),
            (false, true) => return Ok(None),
            (false, false) => format!(" AND day IN ({})", list(&days, |d| format!("'{d}'"))),
        };
        Ok(Some(Read {
            daily: summarised.under(&self.query.filters),
            summarised,
            only,
            ..*self
        }))
    }

    /// The summarised days a figure may take from the summaries' rows: with no filter `daily`'s,
    /// with one or a pair `daily_by`'s (`Summarised::under`), with others none.
    pub(super) fn daily(&self) -> &Summarised {
        &self.daily
    }

    pub(super) fn period(&self) -> Period {
        self.query.range.period
    }

    /// The copy sorted by filter (`by_filter`) that holds the summarised days' events: with two
    /// filters or more that no summary holds (`daily`) and summarised days, the rarest filter's.
    pub(super) fn sorted(&self) -> Option<Sorted<'_>> {
        Sorted::of(&self.project_id.to_string(), &self.query.filters)
            .filter(|_| !self.summarised.days().is_empty() && self.daily.days().is_empty())
    }

    /// The table a statement reads the events from, for the one statement whose figures do not
    /// add up across days (engagement medians): the copy's rows for summarised days and the
    /// events for the others (`sorted`) as one table, else the events. The statement adds
    /// `matching`.
    pub(super) fn events(&self) -> String {
        match self.sorted() {
            Some(sorted) => {
                let days = &self.summarised;
                sorted.events(&self.matching(), days.days(), days.rest())
            }
            None => "events".to_owned(),
        }
    }

    /// A statement of rows (key, views, visitors) that add up per key across days (counts, and
    /// visitors as each day counts them), as `each` writes it given the read's events as
    /// `table WHERE condition`: over the events, or with the copy (`sorted`) once over its rows
    /// of the summarised days and once over the other days' events, added up. Each part is
    /// aggregated where it is read, its conditions tested once.
    pub(super) fn over(&self, each: impl Fn(&str) -> String) -> String {
        self.over_with(each, "sum(views) AS views, sum(visitors) AS visitors")
    }

    /// As `over`, for rows of other figures than views and visitors: `sums` adds them up per key.
    pub(super) fn over_with(&self, each: impl Fn(&str) -> String, sums: &str) -> String {
        let events = |and: &str| each(&format!("events WHERE {}{and}", self.matching()));
        match self.sorted() {
            None => events(""),
            Some(sorted) => {
                let copied = |days: &str, runs: &str| each(&sorted.rows((days, runs)));
                self.summarised.summed(copied, events, sums)
            }
        }
    }

    /// The read's events: the project, the range's days up to `until`, the filters.
    pub(super) fn matching(&self) -> String {
        let range = &self.query.range;
        format!(
            "project_id = {project} AND day >= '{start}' AND day <= '{end}'{only} AND t >= {from} AND t < {until}{filters}",
            project = quote(&self.project_id.to_string()),
            start = range.start,
            end = range.end,
            from = range.from_ts().timestamp_micros(),
            until = self.until.timestamp_micros(),
            filters = filter_sql(&self.query.filters),
            only = self.only,
        )
    }
}

/// Matching page views, and visitors with a matching event.
pub async fn totals(read: &Read<'_>) -> AppResult<(i64, i64)> {
    let rows: Vec<Row> = read
        .client
        .rows(&format!(
            "SELECT key, toInt64(views) AS views, toInt64(visitors) AS visitors FROM ({})",
            read.daily()
                .with("total", "key", |live| read.over(|events| counted_per_day(
                    "''",
                    "countIf(name = 'page_view')",
                    "uniqExact(visitor)",
                    &format!("{events}{live}")
                )))
        ))
        .await
        .map_err(failed)?;
    Ok(rows.first().map_or((0, 0), |t| (t.views, t.visitors)))
}

/// Views and visitors per value of one dimension, largest first, 100 at most.
pub async fn breakdown(read: &Read<'_>, dim: Dim) -> AppResult<Vec<Row>> {
    // The same column names as PostgreSQL's, holding names where PostgreSQL holds label codes.
    let col = dim.column();
    read.client
        .rows(&format!(
            "SELECT key, toInt64(views) AS views, toInt64(visitors) AS visitors FROM ({})
             ORDER BY views DESC, visitors DESC, key LIMIT 100",
            read.daily()
                .with(col, "key", |live| read.over(|events| counted_per_day(
                    col,
                    "count()",
                    "uniqExact(visitor)",
                    &format!("{events}{}{live}", dim_condition(dim))
                )))
        ))
        .await
        .map_err(failed)
}

/// Page views and visitors per hour (ranges of up to 7 days) or day, every bucket that begins
/// before `until`, empty ones as zeros.
pub async fn timeseries(read: &Read<'_>) -> AppResult<Timeseries> {
    let (interval, step) = if read.query.range.days() <= 7 {
        (Interval::Hour, Duration::hours(1))
    } else {
        (Interval::Day, Duration::days(1))
    };
    let from = read.query.range.from_ts();
    let micros = step.num_microseconds().unwrap_or(1);
    let span = (read.until - from).num_microseconds().unwrap_or(0);
    let buckets = ((span - 1).div_euclid(micros) + 1).max(0) as usize;
    // Each bucket's number as its key; days' from the summaries where there are some.
    let bucket = format!(
        "toString(intDiv(t - {}, {micros}))",
        from.timestamp_micros()
    );
    let sql = match interval {
        Interval::Hour => live_buckets(read, &bucket, ""),
        _ => read.daily().with(
            "total",
            &format!(
                "toString(toRelativeDayNum(day) - toRelativeDayNum(toDate('{}')))",
                read.query.range.start
            ),
            |live| live_buckets(read, &bucket, live),
        ),
    };
    let rows: Vec<Row> = read
        .client
        .rows(&format!(
            "SELECT key, toInt64(views) AS views, toInt64(visitors) AS visitors FROM ({sql})"
        ))
        .await
        .map_err(failed)?;
    let mut counts = vec![(0, 0); buckets];
    for r in rows {
        if let Some(c) = r.key.parse().ok().and_then(|k: usize| counts.get_mut(k)) {
            *c = (r.views, r.visitors);
        }
    }
    Ok(Timeseries {
        period: read.period(),
        interval,
        data: counts
            .into_iter()
            .zip(0..)
            .map(|((views, visitors), k)| Point {
                date: from + step * k,
                views,
                visitors,
            })
            .collect(),
    })
}

/// Page views and visitors per bucket (`key`) from the events (`Read::over`).
fn live_buckets(read: &Read<'_>, key: &str, and: &str) -> String {
    read.over(|events| {
        format!(
            "SELECT {key} AS key, countIf(name = 'page_view') AS views, uniqExact(visitor) AS visitors
             FROM {events}{and} GROUP BY key"
        )
    })
}

/// Revenue in `currency` of the read's matching events.
pub async fn revenue(read: &Read<'_>, currency: &str) -> AppResult<RevenueSums> {
    let c = quote(currency);
    let sums = read.over_with(
        |events| {
            format!(
                "SELECT '' AS key, sumIf(revenue_micros, revenue_currency = {c}) AS total,
                        countIf(revenue_currency = {c}) AS counted,
                        countIf(revenue_currency != {c}) AS skipped
                 FROM {events} AND revenue_currency != ''"
            )
        },
        "sum(total) AS total, sum(counted) AS counted, sum(skipped) AS skipped",
    );
    let rows: Vec<RevenueSums> = read
        .client
        .rows(&format!(
            "SELECT toInt64(total) AS total, toInt64(counted) AS counted, toInt64(skipped) AS skipped
             FROM ({sums})"
        ))
        .await
        .map_err(failed)?;
    Ok(rows.first().copied().unwrap_or_default())
}

#[derive(Deserialize)]
struct Property {
    value: String,
    count: i64,
    visitors: i64,
}

/// A custom property's values on one event name, most frequent first, 100 at most.
pub async fn properties(
    read: &Read<'_>,
    event: &str,
    property: &str,
) -> AppResult<Breakdown<PropertyRow>> {
    let key = quote(property);
    // Visitors add up across the parts' days: the visitor hash changes daily.
    let counted = read.over_with(
        |events| {
            format!(
                "SELECT prop_values[indexOf(prop_keys, {key})] AS key, count() AS count,
                        uniqExact(visitor) AS visitors
                 FROM {events} AND name = {} AND has(prop_keys, {key}) GROUP BY key",
                quote(event),
            )
        },
        "sum(count) AS count, sum(visitors) AS visitors",
    );
    let rows: Vec<Property> = read
        .client
        .rows(&format!(
            "SELECT key AS value, toInt64(count) AS count, toInt64(visitors) AS visitors
             FROM ({counted}) ORDER BY count DESC, visitors DESC, value LIMIT 100"
        ))
        .await
        .map_err(failed)?;
    Ok(Breakdown {
        period: read.period(),
        data: rows
            .into_iter()
            .map(|p| PropertyRow {
                value: p.value,
                count: p.count,
                visitors: p.visitors,
            })
            .collect(),
    })
}

#[derive(Deserialize)]
struct Live {
    visitors: i64,
    page_views: i64,
}

#[derive(Deserialize)]
struct LivePage {
    path: String,
    visitors: i64,
}

/// Who is on the site now, as PostgreSQL mode counts it (`pg::realtime`).
pub async fn realtime(
    client: &Client,
    project_id: Uuid,
    now: DateTime<Utc>,
    filters: &Filters,
) -> AppResult<Realtime> {
    use crate::pg::realtime::{PAGE_VIEWS_WINDOW, TOP_PAGES, VISITORS_WINDOW};
    let live_from = (now - VISITORS_WINDOW).timestamp_micros();
    let views_from = now - PAGE_VIEWS_WINDOW;
    let matching = format!(
        "project_id = {} AND day >= '{}' AND t >= {} AND t <= {}{}",
        quote(&project_id.to_string()),
        views_from.date_naive(),
        views_from.timestamp_micros(),
        now.timestamp_micros(),
        filter_sql(filters)
    );
    let totals = format!(
        "SELECT toInt64(uniqExactIf(visitor, t >= {live_from})) AS visitors,
                toInt64(countIf(name = 'page_view')) AS page_views
         FROM events WHERE {matching}"
    );
    let pages = format!(
        "SELECT path, toInt64(uniqExact(visitor)) AS visitors FROM events
         WHERE {matching} AND t >= {live_from} AND name = 'page_view' AND path != ''
         GROUP BY path ORDER BY visitors DESC, path LIMIT {TOP_PAGES}"
    );
    let (totals, pages) = tokio::try_join!(
        client.rows::<Live>(&totals),
        client.rows::<LivePage>(&pages)
    )
    .map_err(failed)?;
    let totals = totals
        .first()
        .map_or((0, 0), |t| (t.visitors, t.page_views));
    Ok(Realtime {
        visitors: totals.0,
        page_views: totals.1,
        pages: pages
            .into_iter()
            .map(|p| RealtimePage {
                page: p.path,
                visitors: p.visitors,
            })
            .collect(),
    })
}

#[derive(Deserialize)]
struct Count {
    n: i64,
}

/// Visitors with an event matching `filters` in `[from, to)`, as PostgreSQL mode counts them.
pub async fn visitors_between(
    client: &Client,
    project_id: Uuid,
    (from, to): (DateTime<Utc>, DateTime<Utc>),
    filters: &Filters,
) -> AppResult<i64> {
    let rows: Vec<Count> = client
        .rows(&format!(
            "SELECT toInt64(uniqExact(day, visitor)) AS n FROM events
             WHERE project_id = {} AND day >= '{}' AND t >= {} AND t < {}{}",
            quote(&project_id.to_string()),
            from.date_naive(),
            from.timestamp_micros(),
            to.timestamp_micros(),
            filter_sql(filters)
        ))
        .await
        .map_err(failed)?;
    Ok(rows.first().map_or(0, |c| c.n))
}
