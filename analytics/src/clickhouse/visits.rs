//! Visits in ClickHouse SQL (the cut itself in `sql`), cut as PostgreSQL mode cuts them
//! (`pg::visits`): a visitor's events of one UTC day with gaps under 30 minutes; a visit counts
//! when it has a page view and an event matching the read's filters; its entry and exit pages are
//! its first and last page views' paths, its duration the whole seconds from its first event to
//! its last. 18.16 has no window functions: each visitor's day is one sorted array, cut where the
//! gap is 30 minutes or more. Funnels walk the same arrays (`funnels`). No lambda here captures a
//! column of its row: 18.16 pairs such captures with the wrong rows. Closed days' visits are cut
//! once (`summaries`, and with their events in the copy sorted by filter, `by_filter`); the other
//! days are cut at read time, filtered ones and funnels (`funnels`) only on the visitor days
//! holding a matching event, unfiltered ones of the open day only on those still active beside
//! the visits that ended (`open_day`).

use shipmate_types::analytics::{Breakdown, Overview, VisitPageRow};

use super::open_day::Ended;
use super::reads::{breakdown, failed, totals, Read};
use super::sql::{cut, days_of, filter_sql, VISIT_ROWS};
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
pub(super) fn days_matching(read: &Read<'_>, also: &str) -> String {
    format!(
        "{} AND cityHash64(day, visitor) IN (SELECT cityHash64(day, visitor) FROM events WHERE {}{also})",
        unfiltered(read),
        read.matching()
    )
}

/// Rows (key, views, visitors) of one of the visit dimensions (`summaries::VISIT_ROWS`) over the
/// read's counted visits: summarised days' from their summaries (with no filter or one, the
/// days' rows; with more, the visits of the events in the copy sorted by a filter that match
/// every filter, `by_filter`), the rest cut from the events; without filters, of the open day
/// only the visitor days still active, beside the visits the upkeep kept (`ended`, `open_day`).
fn visit_rows(
    read: &Read<'_>,
    (dim, key, views, visitors): (&str, &str, &str, &str),
    ended: Option<&Ended>,
) -> String {
    let filters = filter_sql(&read.query.filters);
    let rows = |from: &str, counted: &str| {
        format!(
            "SELECT {key} AS key, {views} AS views, {visitors} AS visitors FROM {from}
             WHERE {counted} AND page_views > 0 AND {key} != '' GROUP BY key"
        )
    };
    let live = |and: &str| {
        let visits = match (filters.strip_prefix(" AND "), ended) {
            (None, None) => cut(
                &days_of(&format!("{}{and}", unfiltered(read)), "1", false),
                false,
            ),
            (None, Some(ended)) => {
                let events = unfiltered(read);
                let active = ended.active(&events);
                let visits = cut(
                    &days_of(&format!("{events}{and}{active}"), "1", false),
                    false,
                );
                ended.with_ended(&read.project_id.to_string(), &visits)
            }
            (Some(hit), _) => cut(
                &days_of(&format!("{}{and}", days_matching(read, and)), hit, false),
                false,
            ),
        };
        rows(&format!("({visits})"), "hit")
    };
    match read.sorted() {
        None => read.daily().with(dim, "key", live),
        Some(sorted) => read
            .summarised
            .joined(|days, runs| sorted.visit_rows(dim, (days, runs)), live),
    }
}

/// The open day's visits that ended, as the upkeep keeps them (`open_day`), for a read without
/// filters whose range holds that day not yet summarised.
async fn ended(read: &Read<'_>) -> AppResult<Option<Ended>> {
    let day = read.until.date_naive();
    let range = &read.query.range;
    if !read.query.filters.0.is_empty()
        || day < range.start
        || day > range.end
        || !read.summarised.rest().contains(&day)
    {
        return Ok(None);
    }
    Ended::of(read.client, day, read.until)
        .await
        .map_err(failed)
}

async fn visit_figures(read: &Read<'_>) -> AppResult<VisitFigures> {
    // Durations in whole seconds, each with its visits and (as visitors) the bounced among them.
    let ended = ended(read).await?;
    let rows: Vec<Row> = read
        .client
        .rows(&format!(
            "SELECT key, toInt64(views) AS views, toInt64(visitors) AS visitors FROM ({})",
            visit_rows(read, VISIT_ROWS[2], ended.as_ref())
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
    let ended = ended(read).await?;
    let rows: Vec<Row> = read
        .client
        .rows(&format!(
            "SELECT key, toInt64(views) AS views, toInt64(visitors) AS visitors FROM ({})
             ORDER BY views DESC, visitors DESC, key LIMIT 100",
            visit_rows(read, VISIT_ROWS[usize::from(exit)], ended.as_ref())
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
