//! The roadmap in the knowledge base: a document names the feedback entries it is about
//! (`feedback_ids`), and search results and answers' citations carry those entries as they are
//! now (title, status, score), so an article about a planned feature shows where it stands.

use std::collections::HashMap;

use shipmate_core::{AppError, AppResult};
use shipmate_types::kb::{LinkedFeedback, SearchResult};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// Most entries one document names.
pub const MOST: usize = 20;

/// Refuses ids that are not feedback entries of the project (422 naming `feedback_ids` and the
/// first such id), or too many of them.
pub async fn check(conn: &mut PgConnection, project_id: Uuid, ids: &[Uuid]) -> AppResult<()> {
    if ids.len() > MOST {
        return Err(invalid(format!(
            "must name at most {MOST} feedback entries"
        )));
    }
    let strangers = sqlx::query_scalar!(
        r#"select u.id as "id!" from unnest($2::uuid[]) u(id)
           where not exists (select 1 from feedback f where f.id = u.id and f.project_id = $1)"#,
        project_id,
        ids
    )
    .fetch_all(conn)
    .await?;
    match strangers.first() {
        Some(id) => Err(invalid(format!(
            "names {id}, which is no feedback entry of this project"
        ))),
        None => Ok(()),
    }
}

fn invalid(message: String) -> AppError {
    AppError::invalid("validation_failed", "feedback_ids", message)
}

/// Makes `ids` the document's entries, replacing what it named before.
pub async fn link(conn: &mut PgConnection, document_id: Uuid, ids: &[Uuid]) -> AppResult<()> {
    sqlx::query!(
        "delete from kb_document_feedback where document_id = $1 and feedback_id <> all($2)",
        document_id,
        ids
    )
    .execute(&mut *conn)
    .await?;
    sqlx::query!(
        "insert into kb_document_feedback (document_id, feedback_id)
         select $1, unnest($2::uuid[]) on conflict do nothing",
        document_id,
        ids
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The entries each of `documents` names, as they are now: an entry merged into another shows as
/// that one; entries held for moderation do not show, nor (for `public` callers, a publishable
/// key) entries of boards that are not public.
pub async fn of(
    db: &PgPool,
    documents: &[Uuid],
    public: bool,
) -> AppResult<HashMap<Uuid, Vec<LinkedFeedback>>> {
    let mut by_document: HashMap<Uuid, Vec<LinkedFeedback>> = HashMap::new();
    if documents.is_empty() {
        return Ok(by_document);
    }
    let rows = sqlx::query!(
        r#"select distinct on (l.document_id, f.id) l.document_id, f.id, f.title, f.status,
                  (f.upvotes - f.downvotes)::int8 as "score!"
           from kb_document_feedback l
           join feedback linked on linked.id = l.feedback_id
           join feedback f on f.id = coalesce(linked.merged_into, linked.id)
           join feedback_boards b on b.id = f.board_id
           where l.document_id = any($1) and f.moderation = 'approved'
             and (not $2 or b.visibility = 'public')
           order by l.document_id, f.id"#,
        documents,
        public
    )
    .fetch_all(db)
    .await?;
    for r in rows {
        by_document
            .entry(r.document_id)
            .or_default()
            .push(LinkedFeedback {
                id: r.id,
                title: r.title,
                status: r.status,
                score: r.score,
            });
    }
    Ok(by_document)
}

/// Gives each result its document's entries (from [`of`]).
pub fn attach(results: &mut [SearchResult], linked: &HashMap<Uuid, Vec<LinkedFeedback>>) {
    for result in results {
        result.feedback = linked.get(&result.document_id).cloned();
    }
}
