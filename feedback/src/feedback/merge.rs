//! Merging duplicates: the source's votes count for the target (one per user: a user who voted on
//! both keeps the target's vote), and the source points at the target and leaves every listing.
//! The source keeps its own vote rows, frozen (it takes no votes once merged): its voters are who
//! the merge email goes to.

use sqlx::PgConnection;
use uuid::Uuid;

use super::{recount, Feedback, COLUMNS};
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::feedback::MergeRequest;

fn refused(message: &str) -> AppError {
    AppError::invalid("validation_failed", "into", message)
}

/// Merges `source` into `target`, both of `project_id`; answers the source and the target as they
/// are now. Both rows are locked in id order, so two crossing merges cannot deadlock.
pub async fn merge(
    tx: &mut PgConnection,
    project_id: Uuid,
    source: Uuid,
    target: Uuid,
) -> AppResult<(Feedback, Feedback)> {
    if source == target {
        return Err(refused("cannot merge an entry into itself"));
    }
    let rows = sqlx::query!(
        "select id, project_id, merged_into from feedback where id = any($1) order by id for update",
        &[source, target][..]
    )
    .fetch_all(&mut *tx)
    .await?;
    let find = |id| rows.iter().find(|r| r.id == id);
    let src = find(source)
        .filter(|r| r.project_id == project_id)
        .ok_or_else(|| AppError::not_found("feedback entry"))?;
    // A merged entry has left every listing: it is not there to merge again.
    if src.merged_into.is_some() {
        return Err(AppError::not_found("feedback entry"));
    }
    match find(target) {
        None => return Err(refused("no such feedback entry")),
        Some(t) if t.project_id != project_id => {
            return Err(refused("the target belongs to another project"))
        }
        Some(t) if t.merged_into.is_some() => {
            return Err(refused("the target was itself merged into another entry"))
        }
        Some(_) => {}
    }
    sqlx::query!(
        "insert into feedback_votes (feedback_id, user_id, end_user_id, value)
         select $2, user_id, end_user_id, value from feedback_votes where feedback_id = $1
         on conflict do nothing",
        source,
        target
    )
    .execute(&mut *tx)
    .await?;
    recount(tx, target).await?;
    let entries = sqlx::query_as::<_, Feedback>(&format!(
        "update feedback set merged_into = case when id = $1 then $2 end, updated_at = now()
         where id = any(array[$1, $2]) returning {COLUMNS}"
    ))
    .bind(source)
    .bind(target)
    .fetch_all(&mut *tx)
    .await?;
    let pick = |id| entries.iter().find(|e| e.id == id).cloned();
    match (pick(source), pick(target)) {
        (Some(s), Some(t)) => Ok((s, t)),
        _ => Err(AppError::not_found("feedback entry")),
    }
}
