//! Feedback entries, their per-type status sets, moderation, and votes; comments, merges and the
//! roadmap in their own modules.

pub mod boards;
pub mod comments;
pub mod github;
pub mod merge;
pub mod roadmap;
pub mod similar;
pub mod tags;
pub mod value;

use sqlx::{PgConnection, PgPool, Postgres, QueryBuilder};
use uuid::Uuid;

use shipmate_core::params::Paging;
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::feedback::{Feedback, FeedbackChanges, NewFeedback, VoteState};
pub use shipmate_types::{
    FeedbackModeration, FeedbackSort, FeedbackStatus, FeedbackType, Importance,
};

pub(crate) const COLUMNS: &str =
    "id, project_id, board_id, title, description, type, status, submitter_email, upvotes, downvotes,
    upvotes - downvotes as score, moderation, merged_into, on_roadmap, links, created_at, updated_at,
    mrr, json_build_object('nice_to_have', nice_to_have, 'important', important,
        'must_have', must_have) as importance,
    (select coalesce(json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color)
        order by lower(t.name)), '[]') from feedback_tags t where t.id = any(feedback.tag_ids)) as tags";

/// What the public sees: approved entries that were not merged into another.
pub(crate) const PUBLIC: &str = "moderation = 'approved' and merged_into is null";

/// How a new entry starts: its board, its moderation, and whether the team accepted it onto the
/// roadmap (entries from the secret key or a member; public submissions wait for a member).
#[derive(Debug, Clone, Copy)]
pub struct Start {
    pub board_id: Uuid,
    pub moderation: FeedbackModeration,
    pub on_roadmap: bool,
}

pub async fn create(
    db: &mut PgConnection,
    project_id: Uuid,
    new: NewFeedback,
    start: Start,
) -> AppResult<Feedback> {
    let status = new.kind.statuses()[0];
    Ok(sqlx::query_as::<_, Feedback>(&format!(
        "insert into feedback
            (id, project_id, title, description, type, status, submitter_email, moderation,
             on_roadmap, board_id)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(project_id)
    .bind(&new.title)
    .bind(&new.description)
    .bind(new.kind.as_str())
    .bind(status.as_str())
    .bind(&new.submitter_email)
    .bind(start.moderation.as_str())
    .bind(start.on_roadmap)
    .bind(start.board_id)
    .fetch_one(&mut *db)
    .await?)
}

#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub kind: Option<FeedbackType>,
    pub status: Option<FeedbackStatus>,
    /// `top` (score, then newest), `new`, or members' `mrr` and `must_have` (then newest).
    pub sort: FeedbackSort,
    /// Approved entries only (the board); members see every moderation state.
    pub public: bool,
    /// Members' review queue: one moderation state.
    pub moderation: Option<FeedbackModeration>,
    /// Entries with this tag.
    pub tag: Option<Uuid>,
    /// Entries on these boards (`None`: every board, no filter to pay for).
    pub boards: Option<Vec<Uuid>>,
}

/// A page of the project's entries (merged duplicates never), in a total order: `top` is score,
/// then newest, then id; `new` is newest, then id. Answers the page and the total.
pub async fn list(
    db: &PgPool,
    project_id: Uuid,
    f: &ListFilter,
    paging: Paging,
) -> AppResult<(Vec<Feedback>, i64)> {
    let order = match f.sort {
        FeedbackSort::Top => "upvotes - downvotes desc, created_at desc, id desc",
        FeedbackSort::New => "created_at desc, id desc",
        FeedbackSort::Mrr => "mrr desc, created_at desc, id desc",
        FeedbackSort::MustHave => "must_have desc, created_at desc, id desc",
    };
    // The page is cut first: the columns' subqueries (tags) then run for its rows only, not for
    // every row the sort reads.
    let mut page = QueryBuilder::new(format!("select {COLUMNS} from (select * from feedback "));
    push_filter(&mut page, project_id, f);
    page.push(format!(" order by {order} limit "))
        .push_bind(paging.per_page)
        .push(" offset ")
        .push_bind(paging.offset())
        .push(format!(") as feedback order by {order}"));
    let data = page.build_query_as::<Feedback>().fetch_all(db).await?;
    let mut count = QueryBuilder::new("select count(*) from feedback ");
    push_filter(&mut count, project_id, f);
    let total: i64 = count.build_query_scalar().fetch_one(db).await?;
    Ok((data, total))
}

/// The listing's `where`, with only the conditions asked for: a statement per combination lets
/// the planner count an unfiltered listing from an index alone.
fn push_filter(q: &mut QueryBuilder<'_, Postgres>, project_id: Uuid, f: &ListFilter) {
    q.push("where project_id = ").push_bind(project_id);
    q.push(if f.public {
        format!(" and {PUBLIC}")
    } else {
        " and merged_into is null".to_owned()
    });
    if let Some(kind) = f.kind {
        q.push(" and type = ").push_bind(kind.as_str());
    }
    if let Some(status) = f.status {
        q.push(" and status = ").push_bind(status.as_str());
    }
    if let Some(moderation) = f.moderation {
        q.push(" and moderation = ").push_bind(moderation.as_str());
    }
    if let Some(tag) = f.tag {
        q.push(" and tag_ids @> array[")
            .push_bind(tag)
            .push("::uuid]");
    }
    if let Some(boards) = &f.boards {
        q.push(" and board_id = any(")
            .push_bind(boards.clone())
            .push(")");
    }
}

pub async fn get(db: &PgPool, id: Uuid) -> AppResult<Feedback> {
    sqlx::query_as::<_, Feedback>(&format!("select {COLUMNS} from feedback where id = $1"))
        .bind(id)
        .fetch_optional(db)
        .await?
        .ok_or_else(|| AppError::not_found("feedback entry"))
}

/// Moves the entry to any status of its own type's set; answers it and the status it had. A member
/// deciding its status has accepted it: it goes on the roadmap.
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
        "update feedback set status = $3, status_changed_at = now(), on_roadmap = true,
            updated_at = now()
         where project_id = $1 and id = $2 returning {COLUMNS}"
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

/// Holds the project's row for the rest of the transaction (one creation at a time per project,
/// so the count stays true) and refuses with 409 `code` once `table` (one of ours, never input)
/// holds `max` rows of the project.
pub(crate) async fn under_limit(
    tx: &mut PgConnection,
    project_id: Uuid,
    table: &str,
    max: i64,
    code: &'static str,
    what: &str,
) -> AppResult<()> {
    sqlx::query!(
        "select id from projects where id = $1 for update",
        project_id
    )
    .fetch_optional(&mut *tx)
    .await?;
    let count: i64 = sqlx::query_scalar(&format!(
        "select count(*) from {table} where project_id = $1"
    ))
    .bind(project_id)
    .fetch_one(&mut *tx)
    .await?;
    if count >= max {
        return Err(AppError::conflict(
            code,
            format!("a project has at most {max} {what}; delete one first"),
        ));
    }
    Ok(())
}

/// Who votes, comments or submits: a dashboard account, or an end user identified in one project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Participant {
    User(Uuid),
    EndUser { id: Uuid, project_id: Uuid },
}

impl Participant {
    /// An end user acts in their own project only: anywhere else their session is no session.
    pub fn check_project(self, project_id: Uuid) -> AppResult<()> {
        match self {
            Participant::EndUser { project_id: p, .. } if p != project_id => Err(
                AppError::unauthorized("this end-user session belongs to another project"),
            ),
            _ => Ok(()),
        }
    }

    /// The account or end user acting, for per-actor limits (both kinds of id are UUIDs v7).
    pub fn actor_id(self) -> Uuid {
        match self {
            Participant::User(id) | Participant::EndUser { id, .. } => id,
        }
    }

    /// (dashboard user, end user): exactly one is set.
    pub fn ids(self) -> (Option<Uuid>, Option<Uuid>) {
        match self {
            Participant::User(id) => (Some(id), None),
            Participant::EndUser { id, .. } => (None, Some(id)),
        }
    }
}

/// Sets (1, -1) or withdraws (0) the voter's vote. The entry's row is locked while its counts are
/// recounted from the votes, so concurrent voters never lose an update.
pub async fn vote(
    db: &PgPool,
    id: Uuid,
    voter: Participant,
    value: i16,
    importance: Importance,
) -> AppResult<VoteState> {
    let mut tx = db.begin().await?;
    let entry = sqlx::query!(
        r#"select project_id, type as "kind: FeedbackType", status as "status: FeedbackStatus"
           from feedback where id = $1 and merged_into is null for update"#,
        id
    )
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(|| AppError::not_found("feedback entry"))?;
    voter.check_project(entry.project_id)?;
    let (user_id, end_user_id) = voter.ids();
    if entry.kind != FeedbackType::Feature {
        return Err(AppError::invalid(
            "voting_not_allowed",
            "type",
            "only feature requests can be voted on",
        ));
    }
    // A shipped or cancelled request's tally is final: no new votes, no changed or withdrawn ones.
    if matches!(
        entry.status,
        FeedbackStatus::Shipped | FeedbackStatus::Cancelled
    ) {
        return Err(AppError::invalid(
            "voting_closed",
            "status",
            format!("voting is closed: this request is {}", entry.status),
        ));
    }
    sqlx::query!(
        "delete from feedback_votes where feedback_id = $1
         and (user_id = $2 or end_user_id = $3)",
        id,
        user_id,
        end_user_id
    )
    .execute(&mut *tx)
    .await?;
    if value != 0 {
        sqlx::query!(
            "insert into feedback_votes (feedback_id, user_id, end_user_id, value, importance)
             values ($1, $2, $3, $4, $5)",
            id,
            user_id,
            end_user_id,
            value,
            importance.as_str()
        )
        .execute(&mut *tx)
        .await?;
    }
    let (upvotes, downvotes) = recount(&mut tx, id).await?;
    let state = VoteState {
        feedback_id: id,
        upvotes,
        downvotes,
        score: upvotes - downvotes,
        user_vote: value.into(),
    };
    tx.commit().await?;
    Ok(state)
}

/// Recounts an entry's votes from its vote rows (the caller holds the entry's row lock), with the
/// customer value behind them (the MRR from the `feedback_mrr` SQL function), in one statement; answers
/// the upvotes and downvotes.
pub(crate) async fn recount(db: &mut PgConnection, id: Uuid) -> AppResult<(i32, i32)> {
    let r = sqlx::query!(
        "update feedback f set
            upvotes = c.up, downvotes = c.down, nice_to_have = c.nice, important = c.important,
            must_have = c.must, mrr = c.mrr
         from (select count(*) filter (where value = 1) as up,
                      count(*) filter (where value = -1) as down,
                      count(*) filter (where value = 1 and importance = 'nice_to_have') as nice,
                      count(*) filter (where value = 1 and importance = 'important') as important,
                      count(*) filter (where value = 1 and importance = 'must_have') as must,
                      feedback_mrr($1) as mrr
               from feedback_votes where feedback_id = $1) c
         where f.id = $1 returning f.upvotes, f.downvotes",
        id
    )
    .fetch_one(&mut *db)
    .await?;
    Ok((r.upvotes, r.downvotes))
}

/// Approves an entry, holds it back, or marks it spam (only approved entries are public).
pub async fn set_moderation(
    db: &mut PgConnection,
    project_id: Uuid,
    id: Uuid,
    moderation: FeedbackModeration,
) -> AppResult<Feedback> {
    set_one(db, project_id, id, "moderation", moderation.as_str()).await
}

/// Puts the entry on the roadmap or takes it off (only entries on it are on the roadmap).
pub async fn set_on_roadmap(
    db: &mut PgConnection,
    project_id: Uuid,
    id: Uuid,
    on_roadmap: bool,
) -> AppResult<Feedback> {
    set_one(db, project_id, id, "on_roadmap", on_roadmap).await
}

/// Moves the entry to another board of its project (the caller resolved the board).
pub async fn set_board(
    db: &mut PgConnection,
    project_id: Uuid,
    id: Uuid,
    board_id: Uuid,
) -> AppResult<Feedback> {
    set_one(db, project_id, id, "board_id", board_id).await
}

/// Sets one column of an entry (`column` is one of ours, never input) and answers the entry.
pub(crate) async fn set_one<T>(
    db: &mut PgConnection,
    project_id: Uuid,
    id: Uuid,
    column: &str,
    value: T,
) -> AppResult<Feedback>
where
    T: for<'q> sqlx::Encode<'q, sqlx::Postgres> + sqlx::Type<sqlx::Postgres> + Send + 'static,
{
    sqlx::query_as::<_, Feedback>(&format!(
        "update feedback set {column} = $3, updated_at = now()
         where project_id = $1 and id = $2 returning {COLUMNS}"
    ))
    .bind(project_id)
    .bind(id)
    .bind(value)
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("feedback entry"))
}

/// The user's own votes on a project's entries (for the board page).
pub async fn user_votes(
    db: &PgPool,
    project_id: Uuid,
    user_id: Uuid,
) -> AppResult<Vec<(Uuid, i16)>> {
    Ok(sqlx::query!(
        "select v.feedback_id, v.value from feedback_votes v join feedback f on f.id = v.feedback_id
         where f.project_id = $1 and v.user_id = $2",
        project_id,
        user_id
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| (r.feedback_id, r.value))
    .collect())
}
