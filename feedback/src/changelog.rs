//! Changelog entries: drafts and published entries; only published ones are public.

use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::feedback::{self, Feedback, FeedbackStatus, FeedbackType};
use shipmate_core::params::Paging;
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::changelog::{
    Entry, EntryChanges, MarkdownPreview, NewEntry, RenderedMarkdown,
};

pub use shipmate_types::ChangelogType;

const COLUMNS: &str =
    "id, project_id, title, content, type, published, published_at, created_at, updated_at,
    array(select cf.feedback_id from changelog_feedback cf where cf.entry_id = changelog_entries.id
          order by cf.feedback_id) as feedback_ids";

/// The public's view: the linked entries of public boards only (a private or segment board's
/// entries are not even named).
const PUBLIC_COLUMNS: &str =
    "id, project_id, title, content, type, published, published_at, created_at, updated_at,
    array(select cf.feedback_id from changelog_feedback cf
          join feedback f on f.id = cf.feedback_id join feedback_boards b on b.id = f.board_id
          where cf.entry_id = changelog_entries.id and b.visibility = 'public'
          order by cf.feedback_id) as feedback_ids";

/// Replaces the entry's links; every id must be a feedback entry of the same project (422
/// naming `feedback_ids` otherwise).
async fn set_links(
    db: &mut PgConnection,
    project_id: Uuid,
    id: Uuid,
    feedback_ids: &[Uuid],
) -> AppResult<()> {
    let found: i64 = sqlx::query_scalar!(
        r#"select count(*) as "n!" from feedback where project_id = $1 and id = any($2)"#,
        project_id,
        feedback_ids
    )
    .fetch_one(&mut *db)
    .await?;
    if found != feedback_ids.len() as i64 {
        return Err(AppError::invalid(
            "validation_failed",
            "feedback_ids",
            "must be ids of feedback entries of this project",
        ));
    }
    sqlx::query!("delete from changelog_feedback where entry_id = $1", id)
        .execute(&mut *db)
        .await?;
    sqlx::query!(
        "insert into changelog_feedback (entry_id, feedback_id) select $1, unnest($2::uuid[])",
        id,
        feedback_ids
    )
    .execute(&mut *db)
    .await?;
    Ok(())
}

async fn get(db: &mut PgConnection, id: Uuid) -> AppResult<Entry> {
    Ok(sqlx::query_as::<_, Entry>(&format!(
        "select {COLUMNS} from changelog_entries where id = $1"
    ))
    .bind(id)
    .fetch_one(db)
    .await?)
}

/// A published entry ships what it answers: linked feature requests become `shipped`, bugs and
/// general feedback `done`; entries already in a final status stay. Answers each moved entry
/// with the status it had, for the events and emails of a status change.
pub async fn ship_linked(
    db: &mut PgConnection,
    entry: &Entry,
) -> AppResult<Vec<(Feedback, FeedbackStatus)>> {
    if !entry.published {
        return Ok(Vec::new());
    }
    let open = sqlx::query!(
        r#"select f.id, f.type as "kind: FeedbackType" from feedback f
           join changelog_feedback cf on cf.feedback_id = f.id
           where cf.entry_id = $1 and f.status in ('new', 'planned', 'in_progress')
           order by f.id for update of f"#,
        entry.id
    )
    .fetch_all(&mut *db)
    .await?;
    let mut moved = Vec::with_capacity(open.len());
    for f in open {
        let to = if f.kind == FeedbackType::Feature {
            FeedbackStatus::Shipped
        } else {
            FeedbackStatus::Done
        };
        moved.push(feedback::set_status(db, entry.project_id, f.id, to).await?);
    }
    Ok(moved)
}

pub async fn create(db: &mut PgConnection, project_id: Uuid, c: NewEntry) -> AppResult<Entry> {
    let published = c.published.unwrap_or(false);
    let id = Uuid::now_v7();
    sqlx::query!(
        "insert into changelog_entries (id, project_id, title, content, type, published, published_at)
         values ($1, $2, $3, $4, $5, $6, case when $6 then now() end)",
        id,
        project_id,
        c.title,
        c.content,
        c.kind.as_str(),
        published
    )
    .execute(&mut *db)
    .await?;
    if let Some(ids) = &c.feedback_ids {
        set_links(db, project_id, id, ids).await?;
    }
    get(db, id).await
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
    sqlx::query!(
        "update changelog_entries set
            title = coalesce($3, title), content = coalesce($4, content), type = coalesce($5, type),
            published = coalesce($6, published),
            published_at = case when coalesce($6, published) then coalesce(published_at, now()) else null end,
            updated_at = now()
         where project_id = $1 and id = $2",
        project_id,
        id,
        c.title,
        c.content,
        c.kind.map(ChangelogType::as_str),
        c.published
    )
    .execute(&mut *db)
    .await?;
    if let Some(ids) = &c.feedback_ids {
        set_links(db, project_id, id, ids).await?;
    }
    Ok((get(db, id).await?, was_published))
}

/// A page of published entries newest first, or of every entry (drafts first, then by date) for
/// members; with the total.
pub async fn list(
    db: &PgPool,
    project_id: Uuid,
    published_only: bool,
    paging: Paging,
) -> AppResult<(Vec<Entry>, i64)> {
    let columns = if published_only {
        PUBLIC_COLUMNS
    } else {
        COLUMNS
    };
    let data = sqlx::query_as::<_, Entry>(&format!(
        "select {columns} from changelog_entries where project_id = $1 and (not $2 or published)
         order by published_at desc nulls first, created_at desc, id desc limit $3 offset $4"
    ))
    .bind(project_id)
    .bind(published_only)
    .bind(paging.per_page)
    .bind(paging.offset())
    .fetch_all(db)
    .await?;
    let total = sqlx::query_scalar!(
        r#"select count(*) as "n!" from changelog_entries where project_id = $1 and (not $2 or published)"#,
        project_id,
        published_only
    )
    .fetch_one(db)
    .await?;
    Ok((data, total))
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

/// A published changelog entry that answers a feedback entry: the board's "Shipped in" link.
#[derive(Debug, Clone)]
pub struct ShippedIn {
    pub feedback_id: Uuid,
    pub entry_id: Uuid,
    pub title: String,
}

/// The published entries linking any of `feedback_ids` (newest first).
pub async fn shipped_in(
    db: &PgPool,
    project_id: Uuid,
    feedback_ids: &[Uuid],
) -> AppResult<Vec<ShippedIn>> {
    Ok(sqlx::query_as!(
        ShippedIn,
        "select cf.feedback_id, e.id as entry_id, e.title from changelog_feedback cf
         join changelog_entries e on e.id = cf.entry_id
         where e.project_id = $1 and e.published and cf.feedback_id = any($2)
         order by e.published_at desc, e.id desc",
        project_id,
        feedback_ids
    )
    .fetch_all(db)
    .await?)
}

/// A public feedback entry that a changelog entry answers: the changelog page's link to the board.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Answered {
    pub entry_id: Uuid,
    pub feedback_id: Uuid,
    pub title: String,
}

/// The public feedback entries (approved, not merged, on a public board) that any of `entry_ids`
/// answer, by title.
/// Runtime-checked SQL, as `shipped_in`.
pub async fn answered(
    db: &PgPool,
    project_id: Uuid,
    entry_ids: &[Uuid],
) -> AppResult<Vec<Answered>> {
    Ok(sqlx::query_as::<_, Answered>(&format!(
        "select cf.entry_id, f.id as feedback_id, f.title from changelog_feedback cf
         join feedback f on f.id = cf.feedback_id
         join feedback_boards b on b.id = f.board_id and b.visibility = 'public'
         where f.project_id = $1 and cf.entry_id = any($2) and {}
         order by f.title, f.id",
        feedback::PUBLIC
    ))
    .bind(project_id)
    .bind(entry_ids)
    .fetch_all(db)
    .await?)
}
