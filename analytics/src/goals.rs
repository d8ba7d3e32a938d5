//! Goals: a custom event or a page view that counts as a conversion. A goal's conversions are the
//! visitors of the range who reached it (with the read's filters), in percent of all its visitors.
//! A goal with a currency also reports the revenue of its events in that currency (amounts in
//! other currencies are counted as skipped, never converted).

use shipmate_types::analytics::{Breakdown, Goal, GoalRow, NewGoal};
use shipmate_types::revenue::{decimal, GoalRevenue};
use sqlx::PgPool;
use uuid::Uuid;

use super::query::percent;
use super::query::Dim;
use super::seam::{EventStore, RevenueSums};
use super::ReadQuery;
use shipmate_core::{AppError, AppResult};

/// What a goal (or a funnel step) is reached by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Event(String),
    Page(String),
}

impl Target {
    /// A stored goal's target: its event, else its page (the body's reader lets exactly one in).
    pub fn of(goal: &Goal) -> Target {
        match (&goal.event, &goal.page) {
            (Some(e), _) => Target::Event(e.clone()),
            (None, p) => Target::Page(p.clone().unwrap_or_default()),
        }
    }

    pub fn dim(&self) -> (Dim, &str) {
        match self {
            Target::Event(e) => (Dim::Event, e),
            Target::Page(p) => (Dim::Page, p),
        }
    }
}

#[derive(sqlx::FromRow)]
struct GoalRecord {
    id: Uuid,
    project_id: Uuid,
    name: String,
    event: Option<String>,
    page: Option<String>,
    currency: Option<String>,
    created_at: chrono::DateTime<chrono::Utc>,
}

impl From<GoalRecord> for Goal {
    fn from(r: GoalRecord) -> Self {
        Goal {
            id: r.id,
            project_id: r.project_id,
            name: r.name,
            event: r.event,
            page: r.page,
            currency: r.currency,
            created_at: r.created_at,
        }
    }
}

pub async fn create(db: &PgPool, new: NewGoal) -> AppResult<Goal> {
    Ok(sqlx::query_as!(
        GoalRecord,
        "insert into analytics_goals (id, project_id, name, event, page, currency)
         values ($1, $2, $3, $4, $5, $6)
         returning id, project_id, name, event, page, currency, created_at",
        Uuid::now_v7(),
        new.project_id,
        new.name,
        new.event,
        new.page,
        new.currency
    )
    .fetch_one(db)
    .await?
    .into())
}

pub async fn list(db: &PgPool, project_id: Uuid) -> AppResult<Vec<Goal>> {
    Ok(sqlx::query_as!(
        GoalRecord,
        "select id, project_id, name, event, page, currency, created_at from analytics_goals
         where project_id = $1 order by created_at, id",
        project_id
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(Goal::from)
    .collect())
}

/// The project a goal belongs to (for the caller's access check).
pub async fn project_of(db: &PgPool, id: Uuid) -> AppResult<Uuid> {
    sqlx::query_scalar!("select project_id from analytics_goals where id = $1", id)
        .fetch_optional(db)
        .await?
        .ok_or_else(|| AppError::not_found("goal"))
}

pub async fn delete(db: &PgPool, id: Uuid) -> AppResult<()> {
    sqlx::query!("delete from analytics_goals where id = $1", id)
        .execute(db)
        .await?;
    Ok(())
}

/// The sums of a goal's revenue as reported: total and average in `currency`.
pub fn revenue(sums: RevenueSums, currency: String) -> GoalRevenue {
    GoalRevenue {
        total: decimal(sums.total),
        // Half up, in millionths; 0 without amounts.
        average: decimal(match sums.counted {
            0 => 0,
            n => (sums.total + n / 2) / n,
        }),
        currency,
    }
}

/// A goal of the project by the text of its id: 404 for any other.
pub async fn of_project(db: &PgPool, project_id: Uuid, raw: &str) -> AppResult<Goal> {
    let id: Uuid = raw
        .trim()
        .parse()
        .map_err(|_| AppError::not_found("goal"))?;
    sqlx::query_as!(
        GoalRecord,
        "select id, project_id, name, event, page, currency, created_at from analytics_goals
         where id = $1 and project_id = $2",
        id,
        project_id
    )
    .fetch_optional(db)
    .await?
    .map(Goal::from)
    .ok_or_else(|| AppError::not_found("goal"))
}

/// Every goal of the project with its conversions over the read's range and filters (the goals
/// from `db`, the figures from the event store).
pub async fn report(
    events: &dyn EventStore,
    db: &PgPool,
    project_id: Uuid,
    query: &ReadQuery,
) -> AppResult<Breakdown<GoalRow>> {
    let visitors = events.reader(project_id, query).await?.visitors().await?;
    let mut data = Vec::new();
    for goal in list(db, project_id).await? {
        let target = Target::of(&goal);
        let (dim, value) = target.dim();
        let reached = ReadQuery {
            filters: query.filters.with(dim, value),
            ..query.clone()
        };
        let read = events.reader(project_id, &reached).await?;
        let conversions = read.visitors().await?;
        let sums = match &goal.currency {
            Some(currency) => Some((read.revenue(currency).await?, currency.clone())),
            None => None,
        };
        data.push(GoalRow {
            id: goal.id,
            name: goal.name,
            event: goal.event,
            page: goal.page,
            visitors,
            conversions,
            conversion_rate: percent(conversions, visitors),
            revenue_skipped: sums.as_ref().map_or(0, |(s, _)| s.skipped),
            revenue: sums.map(|(s, currency)| revenue(s, currency)),
        });
    }
    Ok(Breakdown {
        period: query.range.period,
        data,
    })
}
