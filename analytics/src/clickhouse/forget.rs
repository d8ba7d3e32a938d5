//! Deleted projects' events and summaries. PostgreSQL records each deleted project
//! (`analytics_forgotten_projects`, written by a trigger on `projects`); the workers' upkeep
//! deletes its rows here and then forgets the record, so a deletion that fails (ClickHouse down)
//! is tried again next round. ClickHouse deletes by mutation, in the background, part by part.

use sqlx::PgPool;
use uuid::Uuid;

use super::client::Client;

/// Projects handled per round at most.
const PER_ROUND: i64 = 100;

/// Deletes the rows of projects deleted since the last round; returns how many projects.
pub async fn forget_deleted(client: &Client, db: &PgPool) -> anyhow::Result<usize> {
    let gone: Vec<Uuid> = sqlx::query_scalar!(
        "select project_id from analytics_forgotten_projects order by deleted_at limit $1",
        PER_ROUND
    )
    .fetch_all(db)
    .await?;
    if gone.is_empty() {
        return Ok(0);
    }
    let list = gone
        .iter()
        .map(|id| format!("toUUID('{id}')"))
        .collect::<Vec<_>>()
        .join(", ");
    for table in [
        "events",
        "daily",
        "daily_by",
        "goal_daily",
        "visits",
        "funnel_daily",
        "events_by",
        super::open_day::VISITS,
    ] {
        client
            .execute(&match &client.cluster {
                None => format!("ALTER TABLE {table} DELETE WHERE project_id IN ({list})"),
                Some(c) => format!(
                    "ALTER TABLE {table}_local ON CLUSTER {c} DELETE WHERE project_id IN ({list})"
                ),
            })
            .await?;
    }
    sqlx::query!(
        "delete from analytics_forgotten_projects where project_id = any($1)",
        &gone
    )
    .execute(db)
    .await?;
    Ok(gone.len())
}
