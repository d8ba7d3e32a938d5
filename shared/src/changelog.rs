//! Changelog entries: drafts and published entries; only published ones are public.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::validate::Input;
use crate::{AppError, AppResult};

pub const TYPES: &[&str] = &["feature", "improvement", "fix", "breaking"];

#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Entry {
    pub id: Uuid,
    pub project_id: Uuid,
    pub title: String,
    /// Markdown.
    pub content: String,
    #[serde(rename = "type")]
    #[sqlx(rename = "type")]
    pub kind: String,
    pub published: bool,
    /// Set when the entry is first published; `null` while a draft.
    pub published_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

const COLUMNS: &str =
    "id, project_id, title, content, type, published, published_at, created_at, updated_at";
/// The longest an entry's Markdown may be, in characters (the dashboard's preview takes as much).
pub const MAX_CONTENT: usize = 100_000;

/// The fields of a create (all required but `published`) or of an update (all optional).
#[derive(Debug, Default)]
pub struct Changes {
    pub title: Option<String>,
    pub content: Option<String>,
    pub kind: Option<String>,
    pub published: Option<bool>,
}

impl Changes {
    pub fn parse_new(mut input: Input) -> AppResult<Self> {
        let c = Changes {
            title: input.string("title", 1, 200),
            content: input.string("content", 1, MAX_CONTENT),
            kind: input.one_of("type", TYPES),
            published: input.opt_bool("published"),
        };
        input.finish()?;
        Ok(c)
    }

    pub fn parse_update(mut input: Input) -> AppResult<Self> {
        // A field that is present must be valid; an empty title or content is not a change but an error.
        let title = if input.has("title") {
            input.string("title", 1, 200)
        } else {
            None
        };
        let content = if input.has("content") {
            input.string("content", 1, MAX_CONTENT)
        } else {
            None
        };
        let c = Changes {
            title,
            content,
            kind: input.opt_one_of("type", TYPES),
            published: input.opt_bool("published"),
        };
        input.finish()?;
        Ok(c)
    }
}

pub async fn create(db: &mut PgConnection, project_id: Uuid, c: Changes) -> AppResult<Entry> {
    let published = c.published.unwrap_or(false);
    Ok(sqlx::query_as::<_, Entry>(&format!(
        "insert into changelog_entries (id, project_id, title, content, type, published, published_at)
         values ($1, $2, $3, $4, $5, $6, case when $6 then now() end) returning {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(project_id)
    .bind(c.title.unwrap_or_default())
    .bind(c.content.unwrap_or_default())
    .bind(c.kind.unwrap_or_default())
    .bind(published)
    .fetch_one(&mut *db)
    .await?)
}

/// `published_at` is set when a draft is published and kept while it stays published (so fixing a
/// typo does not move it up the feed); unpublishing returns the entry to draft and clears it.
/// Answers the entry and whether it was published before.
pub async fn update(
    db: &mut PgConnection,
    project_id: Uuid,
    id: Uuid,
    c: Changes,
) -> AppResult<(Entry, bool)> {
    let was_published = sqlx::query_scalar!(
        "select published from changelog_entries where project_id = $1 and id = $2 for update",
        project_id,
        id
    )
    .fetch_optional(&mut *db)
    .await?
    .ok_or_else(|| AppError::not_found("changelog entry"))?;
    let entry = sqlx::query_as::<_, Entry>(&format!(
        "update changelog_entries set
            title = coalesce($3, title), content = coalesce($4, content), type = coalesce($5, type),
            published = coalesce($6, published),
            published_at = case when coalesce($6, published) then coalesce(published_at, now()) else null end,
            updated_at = now()
         where project_id = $1 and id = $2 returning {COLUMNS}"
    ))
    .bind(project_id)
    .bind(id)
    .bind(c.title)
    .bind(c.content)
    .bind(c.kind)
    .bind(c.published)
    .fetch_one(&mut *db)
    .await?;
    Ok((entry, was_published))
}

/// Published entries newest first, or every entry (drafts first, then by date) for the owner.
pub async fn list(db: &PgPool, project_id: Uuid, published_only: bool) -> AppResult<Vec<Entry>> {
    Ok(sqlx::query_as::<_, Entry>(&format!(
        "select {COLUMNS} from changelog_entries where project_id = $1 and (not $2 or published)
         order by published_at desc nulls first, created_at desc limit 500"
    ))
    .bind(project_id)
    .bind(published_only)
    .fetch_all(db)
    .await?)
}

pub async fn delete(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<()> {
    let done = sqlx::query!(
        "delete from changelog_entries where project_id = $1 and id = $2",
        project_id,
        id
    )
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::not_found("changelog entry"));
    }
    Ok(())
}
