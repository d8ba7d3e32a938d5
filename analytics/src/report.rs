//! The weekly email report: last week's figures (Monday to Sunday, UTC) of each project, to the
//! members who opted in (`weekly_report` in their notification settings; off by default). Queued
//! once per project and week, whichever worker's schedule fires first.

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use shipmate_types::analytics::Period;
use sqlx::PgPool;
use uuid::Uuid;

use super::query::{Dim, Filters, Range};
use super::seam::EventStore;
use super::ReadQuery;
use shipmate_core::AppResult;
use shipmate_outbound::email::{self, Kind, Template};

/// The Monday starting the week before `now`'s.
pub fn last_week(now: DateTime<Utc>) -> NaiveDate {
    let today = now.date_naive();
    today - Duration::days(today.weekday().num_days_from_monday() as i64 + 7)
}

/// Queues last week's report for every project with an opted-in member that has not had it.
/// Answers the deliveries to hand to the queue.
pub async fn queue_due(
    events: &dyn EventStore,
    db: &PgPool,
    public_url: &str,
    now: DateTime<Utc>,
) -> AppResult<Vec<Uuid>> {
    let week = last_week(now);
    let projects: Vec<(Uuid, String)> = sqlx::query!(
        "select p.id, p.name from projects p
         where exists (select 1 from project_members m join users u on u.id = m.user_id
                       where m.project_id = p.id and m.notify_weekly_report and u.disabled_at is null)
           and not exists (select 1 from analytics_reports r where r.project_id = p.id and r.week = $1)",
        week
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| (r.id, r.name))
    .collect();
    let mut ids = Vec::new();
    for (project_id, name) in projects {
        let query = ReadQuery {
            range: Range {
                period: Period::Custom,
                start: week,
                end: week + Duration::days(6),
            },
            filters: Filters::default(),
            compare: true,
        };
        let read = events.reader(project_id, &query).await?;
        let (overview, pages) = tokio::try_join!(read.overview(), read.breakdown(Dim::Page))?;
        let change = |now: i64, before: Option<i64>| match before {
            Some(b) if b > 0 => format!(
                " ({:+.0}% on the week before)",
                (now - b) as f64 * 100.0 / b as f64
            ),
            _ => String::new(),
        };
        let previous = overview.previous.as_ref();
        let mut paragraphs = vec![
            format!(
                "Unique visitors: {}{}",
                overview.unique_visitors,
                change(
                    overview.unique_visitors,
                    previous.map(|p| p.unique_visitors)
                )
            ),
            format!(
                "Page views: {}{}",
                overview.page_views,
                change(overview.page_views, previous.map(|p| p.page_views))
            ),
            format!(
                "Visits: {}, bounce rate {}%, median visit {} s",
                overview.visits, overview.bounce_rate, overview.visit_duration
            ),
        ];
        if !pages.is_empty() {
            let top: Vec<String> = pages
                .iter()
                .take(5)
                .map(|p| format!("{} ({} visitors)", p.key, p.visitors))
                .collect();
            paragraphs.push(format!("Top pages: {}", top.join(", ")));
        }
        let template = Template {
            kind: Kind::WeeklyReport,
            subject: format!("[{name}] Your week: {} visitors", overview.unique_visitors),
            heading: format!("{name}, week of {week}"),
            paragraphs,
            action: Some((
                "Open the analytics",
                format!("{public_url}/dashboard/p/{project_id}/analytics"),
            )),
            unsubscribe_url: None,
        };
        let mut tx = db.begin().await?;
        // The report's row is the lock: a second worker's insert conflicts and queues nothing.
        let claimed = sqlx::query!(
            "insert into analytics_reports (project_id, week) values ($1, $2) on conflict do nothing",
            project_id,
            week
        )
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if claimed == 0 {
            continue;
        }
        let recipients: Vec<String> = sqlx::query_scalar!(
            "select u.email from project_members m join users u on u.id = m.user_id
             where m.project_id = $1 and m.notify_weekly_report and u.disabled_at is null",
            project_id
        )
        .fetch_all(&mut *tx)
        .await?;
        let rendered = template.render();
        let messages = recipients
            .into_iter()
            .map(|to| (to, rendered.clone()))
            .collect();
        ids.extend(email::queue(&mut tx, Some(project_id), Kind::WeeklyReport, messages).await?);
        tx.commit().await?;
    }
    Ok(ids)
}
