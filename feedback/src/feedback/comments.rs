//! Comments on public feedback entries; a project member's comment is the team's official answer.

use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::PUBLIC;
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::feedback::{Comment, CommentAuthor, NewComment};

/// Who comments: a dashboard user (official when a member of the entry's project) or an end user
/// of that project.
pub struct Author {
    pub who: super::Participant,
    pub name: String,
}

struct Row {
    id: Uuid,
    feedback_id: Uuid,
    author_name: String,
    body: String,
    official: bool,
    created_at: DateTime<Utc>,
}

impl From<Row> for Comment {
    fn from(r: Row) -> Self {
        Comment {
            id: r.id,
            feedback_id: r.feedback_id,
            author: CommentAuthor {
                name: r.author_name,
            },
            body: r.body,
            official: r.official,
            created_at: r.created_at,
        }
    }
}

/// The public entry's project; hidden (pending, spam) and merged entries are not found.
pub async fn public_entry_project(db: &mut PgConnection, feedback_id: Uuid) -> AppResult<Uuid> {
    sqlx::query_scalar::<_, Uuid>(&format!(
        "select project_id from feedback where id = $1 and {PUBLIC}"
    ))
    .bind(feedback_id)
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("feedback entry"))
}

pub async fn create(
    db: &mut PgConnection,
    feedback_id: Uuid,
    author: &Author,
    body: &str,
) -> AppResult<Comment> {
    let project_id = public_entry_project(db, feedback_id).await?;
    author.who.check_project(project_id)?;
    let (user_id, end_user_id) = author.who.ids();
    let row = sqlx::query_as!(
        Row,
        "insert into feedback_comments (id, feedback_id, user_id, end_user_id, author_name, body, official)
         values ($1, $2, $3, $4, $5, $6,
                 exists (select 1 from project_members m where m.project_id = $7 and m.user_id = $3))
         returning id, feedback_id, author_name, body, official, created_at",
        Uuid::now_v7(),
        feedback_id,
        user_id,
        end_user_id,
        &author.name,
        body,
        project_id
    )
    .fetch_one(db)
    .await?;
    Ok(row.into())
}

/// A public entry's comments, oldest first.
pub async fn list(db: &PgPool, feedback_id: Uuid) -> AppResult<Vec<Comment>> {
    let mut conn = db.acquire().await?;
    public_entry_project(&mut conn, feedback_id).await?;
    let rows = sqlx::query_as!(
        Row,
        "select id, feedback_id, author_name, body, official, created_at from feedback_comments
         where feedback_id = $1 order by created_at, id",
        feedback_id
    )
    .fetch_all(&mut *conn)
    .await?;
    Ok(rows.into_iter().map(Comment::from).collect())
}

/// How many comments each of `feedback_ids` has (entries without any are absent), for the
/// board's counts. Runtime-checked SQL, so the offline `.sqlx/` cache needs no entry for it.
pub async fn counts(db: &PgPool, feedback_ids: &[Uuid]) -> AppResult<Vec<(Uuid, i64)>> {
    Ok(sqlx::query!(
        r#"select feedback_id, count(*) as "count!" from feedback_comments where feedback_id = any($1)
           group by feedback_id"#,
        feedback_ids
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| (r.feedback_id, r.count))
    .collect())
}

/// Deletes a comment: its author, or a member of the entry's project with the `member` role or
/// above (403 for anyone else, viewers included).
pub async fn delete(db: &PgPool, comment_id: Uuid, who: super::Participant) -> AppResult<()> {
    let (user_id, end_user_id) = who.ids();
    let row = sqlx::query!(
        r#"select c.user_id, c.end_user_id, f.project_id, exists (select 1 from project_members m
                where m.project_id = f.project_id and m.user_id = $2
                  and m.role in ('member', 'admin', 'owner')) as "member!"
           from feedback_comments c join feedback f on f.id = c.feedback_id where c.id = $1"#,
        comment_id,
        user_id
    )
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("comment"))?;
    who.check_project(row.project_id)?;
    let author = match who {
        super::Participant::User(_) => row.user_id.is_some() && row.user_id == user_id,
        super::Participant::EndUser { .. } => {
            row.end_user_id.is_some() && row.end_user_id == end_user_id
        }
    };
    if !author && !row.member {
        return Err(AppError::forbidden(
            "only its author or a member of the project can delete a comment",
        ));
    }
    sqlx::query!("delete from feedback_comments where id = $1", comment_id)
        .execute(db)
        .await?;
    Ok(())
}
