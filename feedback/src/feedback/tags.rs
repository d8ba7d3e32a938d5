//! Tags: a project's labels with a colour, set on entries for triage and filtered by in lists.

use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::Feedback;
use shipmate_core::error::on_constraint;
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::tags::{NewTag, Tag, DEFAULT_COLOR};

/// How many tags a project may have: a triage vocabulary, not free-form keywords.
const MAX_PER_PROJECT: i64 = 100;

pub async fn create(db: &PgPool, project_id: Uuid, new: NewTag) -> AppResult<Tag> {
    let mut tx = db.begin().await?;
    super::under_limit(
        &mut tx,
        project_id,
        "feedback_tags",
        MAX_PER_PROJECT,
        "too_many_tags",
        "tags",
    )
    .await?;
    let tag = sqlx::query_as!(
        Tag,
        "insert into feedback_tags (id, project_id, name, color) values ($1, $2, $3, $4)
         returning id, name, color",
        Uuid::now_v7(),
        project_id,
        new.name.trim(),
        new.color.as_deref().unwrap_or(DEFAULT_COLOR)
    )
    .fetch_one(&mut *tx)
    .await
    .map_err(on_constraint(
        "feedback_tags_name",
        "tag_exists",
        "the project has a tag of this name",
    ))?;
    tx.commit().await?;
    Ok(tag)
}

pub async fn list(db: &PgPool, project_id: Uuid) -> AppResult<Vec<Tag>> {
    Ok(sqlx::query_as!(
        Tag,
        "select id, name, color from feedback_tags where project_id = $1 order by lower(name)",
        project_id
    )
    .fetch_all(db)
    .await?)
}

/// Deletes the tag and takes it off every entry.
pub async fn delete(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<()> {
    let mut tx = db.begin().await?;
    let done = sqlx::query!(
        "delete from feedback_tags where project_id = $1 and id = $2",
        project_id,
        id
    )
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::not_found("tag"));
    }
    sqlx::query!(
        "update feedback set tag_ids = array_remove(tag_ids, $2)
         where project_id = $1 and tag_ids @> array[$2::uuid]",
        project_id,
        id
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Replaces the entry's tags with `tags`, each a tag of the entry's project (else 422 naming
/// `tags`, and nothing changes).
pub async fn set_tags(
    db: &mut PgConnection,
    project_id: Uuid,
    id: Uuid,
    tags: &[Uuid],
) -> AppResult<Feedback> {
    let known = sqlx::query_scalar!(
        r#"select count(*) as "n!" from feedback_tags where project_id = $1 and id = any($2)"#,
        project_id,
        tags
    )
    .fetch_one(&mut *db)
    .await?;
    if known != tags.len() as i64 {
        return Err(AppError::invalid(
            "validation_failed",
            "tags",
            "must list tags of the entry's project",
        ));
    }
    super::set_one(db, project_id, id, "tag_ids", tags.to_vec()).await
}
