//! Funnels: 2 to 8 ordered steps (page views or custom events). A visitor counts at a step when
//! they reached every earlier step before it on the same day (a visitor hash lives one day).

use shipmate_types::analytics::{Funnel, FunnelReport, NewFunnel, Step, StepRow};
use sqlx::types::Json;
use sqlx::PgPool;
use uuid::Uuid;

use super::pg::explore::{scan, Snapshot};
use super::query::percent;
use super::ReadQuery;
use shipmate_core::{AppError, AppResult};

#[derive(sqlx::FromRow)]
struct FunnelRecord {
    id: Uuid,
    project_id: Uuid,
    name: String,
    steps: Json<Vec<Step>>,
    created_at: chrono::DateTime<chrono::Utc>,
}

impl From<FunnelRecord> for Funnel {
    fn from(r: FunnelRecord) -> Self {
        Funnel {
            id: r.id,
            project_id: r.project_id,
            name: r.name,
            steps: r.steps.0,
            created_at: r.created_at,
        }
    }
}

pub async fn create(db: &PgPool, new: NewFunnel) -> AppResult<Funnel> {
    Ok(sqlx::query_as!(
        FunnelRecord,
        r#"insert into analytics_funnels (id, project_id, name, steps) values ($1, $2, $3, $4)
         returning id, project_id, name, steps as "steps: Json<Vec<Step>>", created_at"#,
        Uuid::now_v7(),
        new.project_id,
        new.name,
        Json(&new.steps) as _
    )
    .fetch_one(db)
    .await?
    .into())
}

pub async fn list(db: &PgPool, project_id: Uuid) -> AppResult<Vec<Funnel>> {
    Ok(sqlx::query_as!(
        FunnelRecord,
        r#"select id, project_id, name, steps as "steps: Json<Vec<Step>>", created_at from analytics_funnels
         where project_id = $1 order by created_at, id"#,
        project_id
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(Funnel::from)
    .collect())
}

/// Every project's saved funnels' steps, oldest first (ClickHouse mode's upkeep keeps their
/// closed days' counts).
pub async fn saved_steps(db: &PgPool) -> AppResult<Vec<(Uuid, Vec<Step>)>> {
    Ok(sqlx::query!(
        r#"select project_id, steps as "steps: Json<Vec<Step>>" from analytics_funnels
         order by created_at, id"#
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| (r.project_id, r.steps.0))
    .collect())
}

pub async fn find(db: &PgPool, id: Uuid) -> AppResult<Funnel> {
    sqlx::query_as!(
        FunnelRecord,
        r#"select id, project_id, name, steps as "steps: Json<Vec<Step>>", created_at from analytics_funnels
         where id = $1"#,
        id
    )
    .fetch_optional(db)
    .await?
    .map(Funnel::from)
    .ok_or_else(|| AppError::not_found("funnel"))
}

pub async fn delete(db: &PgPool, id: Uuid) -> AppResult<()> {
    sqlx::query!("delete from analytics_funnels where id = $1", id)
        .execute(db)
        .await?;
    Ok(())
}

/// The funnel over the read's range and filters, from the events in memory: each step's earliest
/// time per visitor at or after the step before's (an event at the same instant counts as after:
/// a batch's events share their arrival time).
pub async fn report(db: &PgPool, funnel: &Funnel, query: &ReadQuery) -> AppResult<FunnelReport> {
    let range = &query.range;
    let events = Snapshot::take(
        db,
        funnel.project_id,
        range.start,
        range.end,
        range.until(chrono::Utc::now()),
    )
    .await?;
    let counts = match events.matcher(&query.filters) {
        None => vec![0; funnel.steps.len()],
        Some(filters) => {
            let steps: Vec<scan::Step> = funnel
                .steps
                .iter()
                .map(|s| scan::Step {
                    page: s.page.is_some(),
                    code: events.code(s.label()),
                })
                .collect();
            events
                .run(move |days, _| scan::funnel(days, &filters, &steps))
                .await?
        }
    };
    Ok(report_of(funnel, query, counts))
}

/// The report of the visitors at each step (`counts`, in step order).
pub fn report_of(funnel: &Funnel, query: &ReadQuery, counts: Vec<i64>) -> FunnelReport {
    let first = counts.first().copied().unwrap_or_default();
    FunnelReport {
        id: funnel.id,
        name: funnel.name.clone(),
        period: query.range.period,
        steps: funnel
            .steps
            .iter()
            .zip(counts)
            .map(|(step, visitors)| StepRow {
                label: step.label().to_owned(),
                visitors,
                conversion_rate: percent(visitors, first),
            })
            .collect(),
    }
}
