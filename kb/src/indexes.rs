//! Indexes: named collections of documents, all embedded with the project's locked model.

use sqlx::PgPool;
use uuid::Uuid;

use super::models::Registry;
use shipmate_core::error::on_constraint;
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::kb::{Index, NewIndex};

/// What uploads and searches need of an index, read without counting its documents and chunks
/// (the counts are for listings; on a large index they cost more than the search itself).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct IndexRef {
    pub id: Uuid,
    pub project_id: Uuid,
    pub embedding_model: String,
    pub dimensions: i32,
}

const SELECT: &str = "select i.id, i.project_id, i.name, i.embedding_model, i.dimensions, i.external_id, i.created_at,
    n.document_count, n.documents_ready, n.documents_pending, n.documents_failed,
    (select count(*) from kb_chunks c join kb_documents d on d.id = c.document_id
     where c.index_id = i.id and c.generation = d.generation) as chunk_count
    from kb_indexes i cross join lateral (
        select count(*) as document_count,
               count(*) filter (where d.status = 'ready') as documents_ready,
               count(*) filter (where d.status = 'pending') as documents_pending,
               count(*) filter (where d.status = 'failed') as documents_failed
        from kb_documents d where d.index_id = i.id) n";

/// Creates an index. The project's first index locks the project to its model; later ones must
/// use the same (or name none). The project row is locked so two first indexes cannot race.
pub async fn create(
    db: &PgPool,
    models: &Registry,
    project_id: Uuid,
    name: &str,
    model: Option<&str>,
    external_id: Option<&str>,
) -> AppResult<Index> {
    let mut tx = db.begin().await?;
    let locked: Option<String> = sqlx::query_scalar!(
        "select embedding_model from projects where id = $1 for update",
        project_id
    )
    .fetch_one(&mut *tx)
    .await?;
    let model = match (locked, model) {
        (Some(l), Some(m)) if l != m => {
            return Err(AppError::conflict(
                "embedding_model_locked",
                format!("this project is locked to the embedding model {l}"),
            ));
        }
        (Some(l), _) => l,
        (None, None) => {
            return Err(AppError::invalid(
                "embedding_model_required",
                "embedding_model",
                "is required on the project's first index",
            ));
        }
        (None, Some(m)) => {
            let info = models.info(m).ok_or_else(|| {
                AppError::invalid(
                    "unknown_model",
                    "embedding_model",
                    "is not in GET /v1/indexes/models",
                )
            })?;
            if !info.available {
                return Err(AppError::invalid(
                    "model_unavailable",
                    "embedding_model",
                    "is not available on this deployment",
                ));
            }
            sqlx::query!(
                "update projects set embedding_model = $2 where id = $1",
                project_id,
                m
            )
            .execute(&mut *tx)
            .await?;
            m.to_owned()
        }
    };
    let dims = models.info(&model).map(|m| m.dimensions).unwrap_or(0) as i32;
    let id = Uuid::now_v7();
    sqlx::query!("insert into kb_indexes (id, project_id, name, embedding_model, dimensions, external_id) values ($1, $2, $3, $4, $5, $6)", id, project_id, name, &model, dims, external_id)
        .execute(&mut *tx)
        .await
        .map_err(on_constraint("kb_indexes_name_key", "conflict", "an index with this name already exists in the project"))?;
    tx.commit().await?;
    get(db, project_id, id).await
}

pub async fn list(db: &PgPool, project_id: Uuid) -> AppResult<Vec<Index>> {
    Ok(sqlx::query_as::<_, Index>(&format!(
        "{SELECT} where i.project_id = $1 order by i.created_at"
    ))
    .bind(project_id)
    .fetch_all(db)
    .await?)
}

/// The index, if it belongs to the project; another project's index is a 404.
pub async fn get(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<Index> {
    sqlx::query_as::<_, Index>(&format!("{SELECT} where i.project_id = $1 and i.id = $2"))
        .bind(project_id)
        .bind(id)
        .fetch_optional(db)
        .await?
        .ok_or_else(|| AppError::not_found("index"))
}

/// The index, if it belongs to the project (another project's index is a 404), without counts.
pub async fn find(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<IndexRef> {
    sqlx::query_as!(IndexRef, "select id, project_id, embedding_model, dimensions from kb_indexes where project_id = $1 and id = $2", project_id, id)
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("index"))
}

pub async fn delete(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<()> {
    let done = sqlx::query!(
        "delete from kb_indexes where project_id = $1 and id = $2",
        project_id,
        id
    )
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::not_found("index"));
    }
    Ok(())
}
