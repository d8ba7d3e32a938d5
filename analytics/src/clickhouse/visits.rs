//! Visits in ClickHouse SQL, cut as PostgreSQL mode cuts them (`pg::visits`): a visitor's events
//! of one UTC day with gaps under 30 minutes; a visit counts when it has a page view and an
//! event matching the read's filters; its entry and exit pages are its first and last page views'
//! paths, its duration the whole seconds from its first event to its last. 18.16 has no window
//! functions: each visitor's day is one sorted array, cut where the gap is 30 minutes or more.
//! Funnels walk the same arrays: each step's earliest matching event at or after the step before's.
//! No lambda here captures a column of its row: 18.16 pairs such captures with the wrong rows.

use serde::Deserialize;
use shipmate_types::analytics::{Breakdown, Figures, Funnel, FunnelReport, Overview, VisitPageRow};

use super::client::quote;
use super::reads::{breakdown, failed, filter_sql, totals, Read};
use crate::figures::VisitFigures;
use crate::query::{Dim, ReadQuery};
use shipmate_core::AppResult;

/// Microseconds without events after which a new visit starts.
const GAP_MICROS: u64 = 30 * 60 * 1_000_000;

/// Each visitor's sorted events of each day as `evs` (t, page view, path, matches the filters).
fn days_of_visitors(read: &Read<'_>) -> String {
    let hit = match filter_sql(&read.query.filters).strip_prefix(" AND ") {
        Some(conditions) => conditions.to_owned(),
        None => "1".to_owned(),
    };
    // The visits are cut from every event of the visitor; the filters only mark the events.
    let unfiltered = Read {
        query: &ReadQuery {
            filters: Default::default(),
            ..read.query.clone()
        },
        ..*read
    }
    .matching();
    format!(
        "SELECT day, visitor, arraySort(x -> x.1, groupArray((t, name = 'page_view', path, toUInt8({hit}), name))) AS evs
         FROM events WHERE {unfiltered} GROUP BY day, visitor"
    )
}

/// One row per visit: day, visitor, started, ended, page_views, hit, entry, exit.
fn visits(read: &Read<'_>) -> String {
    format!(
        "SELECT day, visitor, min(ev.1) AS started, max(ev.1) AS ended, countIf(ev.2) AS page_views,
                max(ev.4) AS hit, argMinIf(ev.3, ev.1, ev.2 AND ev.3 != '') AS entry,
                argMaxIf(ev.3, ev.1, ev.2 AND ev.3 != '') AS exit
         FROM (
            SELECT day, visitor, evs,
                   arrayMap(x -> x.1, evs) AS ts,
                   arrayCumSum(arrayMap((a, b) -> toUInt32(a - b >= {GAP_MICROS}), ts, arrayPushFront(arrayPopBack(ts), toUInt64(0)))) AS vns
            FROM ({days})
         ) ARRAY JOIN evs AS ev, vns AS vn
         GROUP BY day, visitor, vn",
        days = days_of_visitors(read)
    )
}

#[derive(Deserialize)]
struct Duration {
    seconds: i64,
    n: i64,
    bounced: i64,
}

async fn visit_figures(read: &Read<'_>) -> AppResult<VisitFigures> {
    let rows: Vec<Duration> = read
        .client
        .rows(&format!(
            "SELECT toInt64(intDiv(ended - started, 1000000)) AS seconds, toInt64(count()) AS n,
                    toInt64(countIf(page_views = 1)) AS bounced
             FROM ({}) WHERE page_views > 0 AND hit GROUP BY seconds ORDER BY seconds",
            visits(read)
        ))
        .await
        .map_err(failed)?;
    let mut figures = VisitFigures::default();
    for d in rows {
        figures.visits += d.n;
        figures.bounced += d.bounced;
        figures.durations.push((d.seconds, d.n));
    }
    Ok(figures)
}

type Figured = (Figures, Option<String>, Option<String>);

/// The overview's numbers of one range, each part its own statement, run at once.
async fn figures(read: &Read<'_>) -> AppResult<Figured> {
    let ((views, visitors), pages, referrers, visits) = tokio::try_join!(
        totals(read),
        breakdown(read, Dim::Page),
        breakdown(read, Dim::Referrer),
        visit_figures(read),
    )?;
    let top = |rows: Vec<crate::seam::Row>| rows.into_iter().next().map(|r| r.key);
    Ok((visits.of(views, visitors), top(pages), top(referrers)))
}

/// The range's figures, and with `compare` the range before's.
pub async fn overview(read: &Read<'_>) -> AppResult<Overview> {
    let before_query = read.query.previous();
    let before = Read::new(read.client, read.project_id, &before_query);
    let previous = async {
        if read.query.compare {
            Ok(Some(figures(&before).await?.0))
        } else {
            Ok(None)
        }
    };
    let ((now, top_page, top_referrer), previous) = tokio::try_join!(figures(read), previous)?;
    Ok(Overview {
        period: read.period(),
        page_views: now.page_views,
        unique_visitors: now.unique_visitors,
        top_page,
        top_referrer,
        visits: now.visits,
        bounce_rate: now.bounce_rate,
        visit_duration: now.visit_duration,
        previous,
    })
}

#[derive(Deserialize)]
struct VisitPage {
    page: String,
    visits: i64,
    visitors: i64,
}

/// Counted visits and their visitors per entry (or exit) page, most visits first.
pub async fn visit_pages(read: &Read<'_>, exit: bool) -> AppResult<Breakdown<VisitPageRow>> {
    let column = if exit { "exit" } else { "entry" };
    let rows: Vec<VisitPage> = read
        .client
        .rows(&format!(
            "SELECT {column} AS page, toInt64(count()) AS visits, toInt64(uniqExact(day, visitor)) AS visitors
             FROM ({}) WHERE page_views > 0 AND hit AND {column} != ''
             GROUP BY page ORDER BY visits DESC, visitors DESC, page LIMIT 100",
            visits(read)
        ))
        .await
        .map_err(failed)?;
    Ok(Breakdown {
        period: read.period(),
        data: rows
            .into_iter()
            .map(|r| VisitPageRow {
                page: r.page,
                visits: r.visits,
                visitors: r.visitors,
            })
            .collect(),
    })
}

/// Visitors at each step: per visitor and day, each step's earliest matching event (a page view
/// of its path, or its event name, matching the filters) at or after the step before's.
pub async fn funnel(read: &Read<'_>, funnel: &Funnel) -> AppResult<FunnelReport> {
    // Each step's event as its index in the sorted array (0: not reached), searched from the step
    // before's: events of one visitor at one instant do not occur, so "at or after its time" is
    // "from its place on". 18.16 misreads a lambda that captures a column of its row (a step's
    // time), so none here does: the search runs on a slice instead.
    let mut columns = Vec::new();
    let mut reached = Vec::new();
    for (k, step) in funnel.steps.iter().enumerate() {
        let matches = match &step.page {
            Some(page) => format!("x.2 AND x.3 = {}", quote(page)),
            None => format!("x.5 = {}", quote(step.label())),
        };
        let find = |within: &str| format!("arrayFirstIndex(x -> {matches} AND x.4, {within})");
        columns.push(if k == 0 {
            format!("{} AS i0", find("evs"))
        } else {
            let (prev, found) = (
                format!("i{}", k - 1),
                find(&format!("arraySlice(evs, i{})", k - 1)),
            );
            format!("if({prev} = 0 OR {found} = 0, 0, {prev} - 1 + {found}) AS i{k}")
        });
        reached.push(format!("toInt64(countIf(i{k} > 0)) AS s{k}"));
    }
    let sql = format!(
        "SELECT {} FROM (SELECT {} FROM ({}))",
        reached.join(", "),
        columns.join(", "),
        days_of_visitors(read)
    );
    let rows: Vec<serde_json::Map<String, serde_json::Value>> =
        read.client.rows(&sql).await.map_err(failed)?;
    let counts = (0..funnel.steps.len())
        .map(|k| {
            rows.first()
                .and_then(|r| r.get(&format!("s{k}")))
                .and_then(|v| v.as_i64())
                .unwrap_or_default()
        })
        .collect();
    Ok(crate::funnels::report_of(funnel, read.query, counts))
}
