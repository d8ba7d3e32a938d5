//! Changelog entries: drafts and published entries; only published ones are public.

use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::validate::{FromInput, Input};
use crate::{AppError, AppResult};

pub use shipmate_types::changelog::{Entry, EntryChanges, NewEntry};
pub use shipmate_types::ChangelogType;

const COLUMNS: &str =
    "id, project_id, title, content, type, published, published_at, created_at, updated_at";
/// The longest an entry's Markdown may be, in characters (the dashboard's preview takes as much).
pub const MAX_CONTENT: usize = 100_000;

impl FromInput for NewEntry {
    fn read(input: &mut Input) -> Option<Self> {
        let title = input.string("title", 1, 200);
        let content = input.string("content", 1, MAX_CONTENT);
        let kind = input.enum_value("type");
        let published = input.opt_bool("published");
        Some(NewEntry {
            title: title?,
            content: content?,
            kind: kind?,
            published,
        })
    }
}

/// A field that is present must be valid; an empty title or content is not a change but an error.
impl FromInput for EntryChanges {
    fn read(input: &mut Input) -> Option<Self> {
        Some(EntryChanges {
            title: input.present("title", |i| i.string("title", 1, 200)),
            content: input.present("content", |i| i.string("content", 1, MAX_CONTENT)),
            kind: input.opt_enum("type"),
            published: input.opt_bool("published"),
        })
    }
}

pub async fn create(db: &mut PgConnection, project_id: Uuid, c: NewEntry) -> AppResult<Entry> {
    let published = c.published.unwrap_or(false);
    Ok(sqlx::query_as::<_, Entry>(&format!(
        "insert into changelog_entries (id, project_id, title, content, type, published, published_at)
         values ($1, $2, $3, $4, $5, $6, case when $6 then now() end) returning {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(project_id)
    .bind(c.title)
    .bind(c.content)
    .bind(c.kind.as_str())
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
    c: EntryChanges,
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
    .bind(c.kind.map(ChangelogType::as_str))
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
