//! Saved segments: a name for a set of read filters. Any read takes `segment=<id>`: the segment's
//! filters are added to those given (`Filters::and`), so a segment read costs what the same
//! filters cost, plus one lookup by key. A share link may be locked to one (`shares`).

use shipmate_types::analytics::{NewSegment, Segment};
use sqlx::PgPool;
use uuid::Uuid;

use crate::query::Filters;
use shipmate_core::{AppError, AppResult};

/// Most segments one project keeps: a picker, not a store of queries.
pub const MAX_PER_PROJECT: i64 = 100;

struct Record {
    id: Uuid,
    project_id: Uuid,
    name: String,
    filters: serde_json::Value,
    created_at: chrono::DateTime<chrono::Utc>,
}

impl From<Record> for Segment {
    fn from(r: Record) -> Self {
        let filters = serde_json::from_value(r.filters).unwrap_or_default();
        Segment {
            id: r.id,
            project_id: r.project_id,
            name: r.name,
            filters,
            created_at: r.created_at,
        }
    }
}

/// Checks the filters as the reads do (`filters.<name>` for each bad one) and stores the segment.
pub async fn create(db: &PgPool, new: NewSegment) -> AppResult<Segment> {
    let filters = Filters::from_object(&new.filters).map_err(AppError::validation)?;
    let stored = serde_json::to_value(filters.to_object())
        .map_err(|e| AppError::Internal(anyhow::Error::new(e)))?;
    let mut tx = db.begin().await?;
    // The project's row is the lock: two creates at once cannot both pass the limit.
    sqlx::query!(
        "select id from projects where id = $1 for update",
        new.project_id
    )
    .fetch_one(&mut *tx)
    .await?;
    let count = sqlx::query_scalar!(
        "select count(*) as \"n!\" from analytics_segments where project_id = $1",
        new.project_id
    )
    .fetch_one(&mut *tx)
    .await?;
    if count >= MAX_PER_PROJECT {
        return Err(AppError::conflict(
            "segment_limit",
            format!("a project keeps at most {MAX_PER_PROJECT} segments; delete one first"),
        ));
    }
    let segment = sqlx::query_as!(
        Record,
        "insert into analytics_segments (id, project_id, name, filters) values ($1, $2, $3, $4)
         returning id, project_id, name, filters, created_at",
        Uuid::now_v7(),
        new.project_id,
        new.name,
        stored
    )
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(segment.into())
}

pub async fn list(db: &PgPool, project_id: Uuid) -> AppResult<Vec<Segment>> {
    Ok(sqlx::query_as!(
        Record,
        "select id, project_id, name, filters, created_at from analytics_segments
         where project_id = $1 order by created_at, id",
        project_id
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(Segment::from)
    .collect())
}

/// The project a segment belongs to (404 when there is none).
pub async fn project_of(db: &PgPool, id: Uuid) -> AppResult<Uuid> {
    sqlx::query_scalar!(
        "select project_id from analytics_segments where id = $1",
        id
    )
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("segment"))
}

/// Deletes a segment, and with it the share links locked to it.
pub async fn delete(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<()> {
    let gone = sqlx::query!(
        "delete from analytics_segments where project_id = $1 and id = $2",
        project_id,
        id
    )
    .execute(db)
    .await?
    .rows_affected();
    if gone == 0 {
        return Err(AppError::not_found("segment"));
    }
    Ok(())
}

/// The filters of the project's segment `id`: 404 `not_found` for an unknown id or another
/// project's segment.
pub async fn filters(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<Filters> {
    let stored = sqlx::query_scalar!(
        "select filters from analytics_segments where project_id = $1 and id = $2",
        project_id,
        id
    )
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("segment"))?;
    let object = stored.as_object().cloned().unwrap_or_default();
    Filters::from_object(&object).map_err(|_| AppError::not_found("segment"))
}
