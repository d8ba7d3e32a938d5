//! Feedback entries, their per-type status sets, and votes.

use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::validate::{FromInput, Input};
use crate::{AppError, AppResult};

pub use shipmate_types::feedback::{Feedback, NewFeedback, StatusChange, VoteState};
pub use shipmate_types::{FeedbackSort, FeedbackStatus, FeedbackType};

const COLUMNS: &str =
    "id, project_id, title, description, type, status, submitter_email, upvotes, downvotes,
    upvotes - downvotes as score, created_at, updated_at";

impl FromInput for NewFeedback {
    fn read(input: &mut Input) -> Option<Self> {
        let title = input.string("title", 1, 200);
        let description = input.opt_string("description", 10_000);
        let kind = input.enum_value("type");
        let submitter_email = input.opt_email("submitter_email");
        Some(NewFeedback {
            title: title?,
            kind: kind?,
            description,
            submitter_email,
        })
    }
}

/// Whether the status fits the entry's type is the handler's check; any other string is
/// `invalid_status`, as the contract says (a missing or non-string one is `validation_failed`).
impl FromInput for StatusChange {
    fn read(input: &mut Input) -> Option<Self> {
        if input.raw("status").is_some_and(|v| v.is_string()) {
            input.set_code("invalid_status");
        }
        Some(StatusChange {
            status: input.enum_value("status")?,
        })
    }
}

pub async fn create(
    db: &mut PgConnection,
    project_id: Uuid,
    new: NewFeedback,
) -> AppResult<Feedback> {
    let status = new.kind.statuses()[0];
    Ok(sqlx::query_as::<_, Feedback>(&format!(
        "insert into feedback (id, project_id, title, description, type, status, submitter_email)
         values ($1, $2, $3, $4, $5, $6, $7) returning {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(project_id)
    .bind(&new.title)
    .bind(&new.description)
    .bind(new.kind.as_str())
    .bind(status.as_str())
    .bind(&new.submitter_email)
    .fetch_one(&mut *db)
    .await?)
}

#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub kind: Option<FeedbackType>,
    pub status: Option<FeedbackStatus>,
    /// `top` (score, then newest) or `new`.
    pub newest_first: bool,
}

pub async fn list(db: &PgPool, project_id: Uuid, f: &ListFilter) -> AppResult<Vec<Feedback>> {
    let order = if f.newest_first {
        "created_at desc, id desc"
    } else {
        "upvotes - downvotes desc, created_at desc, id desc"
    };
    Ok(sqlx::query_as::<_, Feedback>(&format!(
        "select {COLUMNS} from feedback where project_id = $1
         and ($2::text is null or type = $2) and ($3::text is null or status = $3)
         order by {order} limit 1000"
    ))
    .bind(project_id)
    .bind(f.kind.map(FeedbackType::as_str))
    .bind(f.status.map(FeedbackStatus::as_str))
    .fetch_all(db)
    .await?)
}

pub async fn get(db: &PgPool, id: Uuid) -> AppResult<Feedback> {
    sqlx::query_as::<_, Feedback>(&format!("select {COLUMNS} from feedback where id = $1"))
        .bind(id)
        .fetch_optional(db)
        .await?
        .ok_or_else(|| AppError::not_found("feedback entry"))
}

/// Moves the entry to any status of its own type's set; answers it and the status it had.
pub async fn set_status(
    db: &mut PgConnection,
    project_id: Uuid,
    id: Uuid,
    status: FeedbackStatus,
) -> AppResult<(Feedback, FeedbackStatus)> {
    let previous = sqlx::query_scalar!(
        r#"select status as "status: FeedbackStatus" from feedback where project_id = $1 and id = $2 for update"#,
        project_id,
        id
    )
    .fetch_optional(&mut *db)
    .await?
    .ok_or_else(|| AppError::not_found("feedback entry"))?;
    let entry = sqlx::query_as::<_, Feedback>(&format!(
        "update feedback set status = $3, updated_at = now() where project_id = $1 and id = $2 returning {COLUMNS}"
    ))
    .bind(project_id)
    .bind(id)
    .bind(status)
    .fetch_one(&mut *db)
    .await?;
    Ok((entry, previous))
}

pub async fn delete(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<()> {
    let done = sqlx::query!(
        "delete from feedback where project_id = $1 and id = $2",
        project_id,
        id
    )
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::not_found("feedback entry"));
    }
    Ok(())
}

/// Sets (1, -1) or withdraws (0) the user's vote. The entry's row is locked while its counts are
/// recounted from the votes, so concurrent voters never lose an update.
pub async fn vote(db: &PgPool, id: Uuid, user_id: Uuid, value: i16) -> AppResult<VoteState> {
    let mut tx = db.begin().await?;
    let kind = sqlx::query_scalar!(
        r#"select type as "kind: FeedbackType" from feedback where id = $1 for update"#,
        id
    )
    .fetch_optional(&mut *tx)
    .await?;
    match kind {
        None => return Err(AppError::not_found("feedback entry")),
        Some(FeedbackType::Feature) => {}
        Some(_) => {
            return Err(AppError::invalid(
                "voting_not_allowed",
                "type",
                "only feature requests can be voted on",
            ));
        }
    }
    if value == 0 {
        sqlx::query!(
            "delete from feedback_votes where feedback_id = $1 and user_id = $2",
            id,
            user_id
        )
        .execute(&mut *tx)
        .await?;
    } else {
        sqlx::query!(
            "insert into feedback_votes (feedback_id, user_id, value) values ($1, $2, $3)
             on conflict (feedback_id, user_id) do update set value = excluded.value",
            id,
            user_id,
            value
        )
        .execute(&mut *tx)
        .await?;
    }
    let state = sqlx::query_as!(VoteState, r#"update feedback f set
            upvotes = (select count(*) from feedback_votes v where v.feedback_id = f.id and v.value = 1),
            downvotes = (select count(*) from feedback_votes v where v.feedback_id = f.id and v.value = -1)
         where f.id = $1
         returning f.id as feedback_id, f.upvotes, f.downvotes, f.upvotes - f.downvotes as "score!", $2::int as "user_vote!""#, id, i32::from(value))
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(state)
}

/// The user's own votes on a project's entries (for the board page).
pub async fn user_votes(
    db: &PgPool,
    project_id: Uuid,
    user_id: Uuid,
) -> AppResult<Vec<(Uuid, i16)>> {
    Ok(sqlx::query_as(
        "select v.feedback_id, v.value from feedback_votes v join feedback f on f.id = v.feedback_id
         where f.project_id = $1 and v.user_id = $2",
    )
    .bind(project_id)
    .bind(user_id)
    .fetch_all(db)
    .await?)
}
