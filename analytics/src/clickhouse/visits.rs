//! Visits in ClickHouse SQL (the cut itself in `sql`), cut as PostgreSQL mode cuts them
//! (`pg::visits`): a visitor's events of one UTC day with gaps under 30 minutes; a visit counts
//! when it has a page view and an event matching the read's filters; its entry and exit pages are
//! its first and last page views' paths, its duration the whole seconds from its first event to
//! its last. 18.16 has no window functions: each visitor's day is one sorted array, cut where the
//! gap is 30 minutes or more. Funnels walk the same arrays: each step's earliest matching event at
//! or after the step before's. No lambda here captures a column of its row: 18.16 pairs such
//! captures with the wrong rows. Closed days' visits are cut once and stored (`summaries`, with
//! their events' dimensions for filtered reads); the other days are cut at read time, filtered
//! ones and funnels only on the visitor days holding a matching event.

use shipmate_types::analytics::{Breakdown, Funnel, FunnelReport, Overview, VisitPageRow};

use super::client::quote;
use super::reads::{breakdown, failed, filter_sql, totals, Read};
use super::sql::{cut, days_of, VISIT_ROWS};
use crate::figures::{Figured, VisitFigures};
use crate::query::{Dim, ReadQuery};
use crate::seam::Row;
use shipmate_core::AppResult;

/// The read's events with its filters left out: visits are cut from every event of a visitor.
pub(super) fn unfiltered(read: &Read<'_>) -> String {
    let query = ReadQuery {
        filters: Default::default(),
        ..read.query.clone()
    };
    let mut all = Read::new(read.client, read.project_id, &query);
    all.until = read.until;
    all.matching()
}

/// The visitor days holding an event that matches the read's filters: only they can hold a
/// counted visit (or reach a funnel's first step, with that step's condition added). Found by a
/// hash of (day, visitor), twice as fast as the pair on 18.16 (whose sorting-key analysis of a
/// large set of pairs is slow): a collision only adds a day without a matching event, whose
/// visits count for nothing and reach no step.
fn days_matching(read: &Read<'_>, also: &str) -> String {
    format!(
        "{} AND cityHash64(day, visitor) IN (SELECT cityHash64(day, visitor) FROM events WHERE {}{also})",
        unfiltered(read),
        read.matching()
    )
}

/// Rows (key, views, visitors) of one of the visit dimensions (`summaries::VISIT_ROWS`) over the
/// read's counted visits: summarised days' from their summaries (with no filter or one, the
/// days' rows; with more, the stored visits holding an event that matches every filter), the
/// rest cut from the events.
fn visit_rows(read: &Read<'_>, (dim, key, views, visitors): (&str, &str, &str, &str)) -> String {
    let filters = filter_sql(&read.query.filters);
    let rows = |from: &str, counted: &str| {
        format!(
            "SELECT {key} AS key, {views} AS views, {visitors} AS visitors FROM {from}
             WHERE {counted} AND page_views > 0 AND {key} != '' GROUP BY key"
        )
    };
    let live = |and: &str| {
        let visits = match filters.strip_prefix(" AND ") {
            None => cut(
                &days_of(&format!("{}{and}", unfiltered(read)), "1", false),
                false,
            ),
            Some(hit) => cut(
                &days_of(&format!("{}{and}", days_matching(read, and)), hit, false),
                false,
            ),
        };
        rows(&format!("({visits})"), "hit")
    };
    if read.query.filters.0.len() < 2 {
        return read.daily().with(dim, "key", live);
    }
    // The filters as one lambda over the visit's arrays, each a parameter: no lambda captures a
    // column of its row (18.16, above).
    let filters = &read.query.filters.0;
    let params: Vec<String> = (0..filters.len()).map(|k| format!("f{k}")).collect();
    let tests: Vec<String> = filters
        .iter()
        .zip(&params)
        .map(|((_, value), p)| format!("{p} = {}", quote(value)))
        .collect();
    let arrays: Vec<String> = filters
        .iter()
        .map(|(d, _)| format!("d_{}", d.column()))
        .collect();
    let matched = format!(
        "arrayExists(({}) -> {}, {})",
        params.join(", "),
        tests.join(" AND "),
        arrays.join(", ")
    );
    let project = quote(&read.project_id.to_string());
    read.summarised.joined(
        |days, runs| {
            rows(
                "visits",
                &format!(
                    "project_id = {project} AND day IN ({days}) AND run IN ({runs}) AND {matched}"
                ),
            )
        },
        live,
    )
}

async fn visit_figures(read: &Read<'_>) -> AppResult<VisitFigures> {
    // Durations in whole seconds, each with its visits and (as visitors) the bounced among them.
    let rows: Vec<Row> = read
        .client
        .rows(&format!(
            "SELECT key, toInt64(views) AS views, toInt64(visitors) AS visitors FROM ({})",
            visit_rows(read, VISIT_ROWS[2])
        ))
        .await
        .map_err(failed)?;
    let mut durations: Vec<(i64, i64, i64)> = rows
        .into_iter()
        .map(|r| (r.key.parse().unwrap_or_default(), r.views, r.visitors))
        .collect();
    durations.sort_unstable();
    let mut figures = VisitFigures::default();
    for (seconds, n, bounced) in durations {
        figures.visits += n;
        figures.bounced += bounced;
        figures.durations.push((seconds, n));
    }
    Ok(figures)
}

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
    let previous = async {
        if read.query.compare {
            let before = Read::open(read.client, read.project_id, &before_query).await?;
            Ok(Some(figures(&before).await?.0))
        } else {
            Ok(None)
        }
    };
    let (now, previous) = tokio::try_join!(figures(read), previous)?;
    Ok(crate::figures::overview(read.period(), now, previous))
}

/// Counted visits and their visitors per entry (or exit) page, most visits first.
pub async fn visit_pages(read: &Read<'_>, exit: bool) -> AppResult<Breakdown<VisitPageRow>> {
    let rows: Vec<Row> = read
        .client
        .rows(&format!(
            "SELECT key, toInt64(views) AS views, toInt64(visitors) AS visitors FROM ({})
             ORDER BY views DESC, visitors DESC, key LIMIT 100",
            visit_rows(read, VISIT_ROWS[usize::from(exit)])
        ))
        .await
        .map_err(failed)?;
    Ok(Breakdown {
        period: read.period(),
        data: rows
            .into_iter()
            .map(|r| VisitPageRow {
                page: r.key,
                visits: r.views,
                visitors: r.visitors,
            })
            .collect(),
    })
}

/// Visitors at each step: per visitor and day, each step's earliest matching event (a page view
/// of its path, or its event name, matching the filters) at or after the step before's. The
/// arrays hold only the events that can be a step.
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
    let steps: Vec<String> = funnel
        .steps
        .iter()
        .map(|step| match &step.page {
            Some(page) => format!("name = 'page_view' AND path = {}", quote(page)),
            None => format!("name = {}", quote(step.label())),
        })
        .collect();
    // Only visitor days that reach the first step can reach any, and only the events that match
    // a step (and the filters) can be one: the others are left out of the arrays.
    let first = steps
        .first()
        .map(|s| format!(" AND {s}"))
        .unwrap_or_default();
    let hit = filter_sql(&read.query.filters);
    let sql = format!(
        "SELECT {} FROM (SELECT {} FROM ({}))",
        reached.join(", "),
        columns.join(", "),
        days_of(
            &format!(
                "{} AND (({})){hit}",
                days_matching(read, &first),
                steps.join(") OR (")
            ),
            "1",
            false
        )
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
