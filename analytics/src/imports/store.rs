//! The imports' records: created with their file, listed, deleted with what they brought.

use shipmate_core::{AppError, AppResult};
use shipmate_types::imports::AnalyticsImport;
use sqlx::PgPool;
use uuid::Uuid;

#[derive(sqlx::FromRow)]
struct Record {
    id: Uuid,
    project_id: Uuid,
    source: String,
    status: String,
    error: Option<String>,
    file_name: String,
    progress: i32,
    from_day: Option<chrono::NaiveDate>,
    to_day: Option<chrono::NaiveDate>,
    rows: i64,
    created_at: chrono::DateTime<chrono::Utc>,
    finished_at: Option<chrono::DateTime<chrono::Utc>>,
}

impl From<Record> for AnalyticsImport {
    fn from(r: Record) -> Self {
        AnalyticsImport {
            id: r.id,
            project_id: r.project_id,
            source: r.source,
            status: r.status,
            error: r.error,
            file_name: r.file_name,
            progress: r.progress,
            from: r.from_day,
            to: r.to_day,
            rows: r.rows,
            created_at: r.created_at,
            finished_at: r.finished_at,
        }
    }
}

/// A pending import of a Plausible export, its file kept until a worker applies it.
pub async fn create(
    db: &PgPool,
    project_id: Uuid,
    file_name: &str,
    file: &[u8],
) -> AppResult<AnalyticsImport> {
    Ok(sqlx::query_as!(
        Record,
        "insert into analytics_imports (id, project_id, source, file_name, file)
         values ($1, $2, 'plausible', $3, $4)
         returning id, project_id, source, status, error, file_name, progress, from_day, to_day,
                   rows, created_at, finished_at",
        Uuid::now_v7(),
        project_id,
        file_name,
        file
    )
    .fetch_one(db)
    .await?
    .into())
}

/// The project's imports, newest first.
pub async fn list(db: &PgPool, project_id: Uuid) -> AppResult<Vec<AnalyticsImport>> {
    Ok(sqlx::query_as!(
        Record,
        "select id, project_id, source, status, error, file_name, progress, from_day, to_day,
                rows, created_at, finished_at
         from analytics_imports where project_id = $1 order by created_at desc, id desc",
        project_id
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(AnalyticsImport::from)
    .collect())
}

/// The project an import belongs to (for the caller's access check).
pub async fn project_of(db: &PgPool, id: Uuid) -> AppResult<Uuid> {
    sqlx::query_scalar!("select project_id from analytics_imports where id = $1", id)
        .fetch_optional(db)
        .await?
        .ok_or_else(|| AppError::not_found("import"))
}

/// Deletes an import and its rows (a worker applying it meanwhile finds it gone and keeps nothing).
pub async fn delete(db: &PgPool, id: Uuid) -> AppResult<()> {
    sqlx::query!("delete from analytics_imports where id = $1", id)
        .execute(db)
        .await?;
    Ok(())
}
