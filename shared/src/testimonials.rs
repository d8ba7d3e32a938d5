//! Testimonials: collected as `pending`, shown on the project's site once approved.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::validate::Input;
use crate::{AppError, AppResult};

pub const STATUSES: &[&str] = &["pending", "approved", "rejected"];

#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Testimonial {
    pub id: Uuid,
    pub project_id: Uuid,
    pub author_name: String,
    /// Only in the owner's views.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author_email: Option<String>,
    pub author_title: Option<String>,
    pub content: String,
    pub rating: i16,
    pub tweet_url: Option<String>,
    pub status: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Testimonial {
    /// The public view: never the author's address.
    pub fn public(mut self) -> Self {
        self.author_email = None;
        self
    }
}

const COLUMNS: &str =
    "id, project_id, author_name, author_email, author_title, content, rating, tweet_url, status, created_at, updated_at";

pub struct NewTestimonial {
    pub author_name: String,
    pub author_email: String,
    pub author_title: Option<String>,
    pub content: String,
    pub rating: i16,
    pub tweet_url: Option<String>,
}

impl NewTestimonial {
    pub fn parse(mut input: Input) -> AppResult<Self> {
        let author_name = input.string("author_name", 1, 100);
        let author_email = input.email("author_email");
        let author_title = input.opt_string("author_title", 100);
        let content = input.string("content", 1, 5_000);
        let rating = input.int("rating", 1, 5);
        let tweet_url = input.opt_http_url("tweet_url", 2_048);
        input.finish()?;
        Ok(NewTestimonial {
            author_name: author_name.unwrap_or_default(),
            author_email: author_email.unwrap_or_default(),
            author_title,
            content: content.unwrap_or_default(),
            rating: rating.unwrap_or_default() as i16,
            tweet_url,
        })
    }
}

pub async fn create(
    db: &mut PgConnection,
    project_id: Uuid,
    new: NewTestimonial,
) -> AppResult<Testimonial> {
    Ok(sqlx::query_as::<_, Testimonial>(&format!(
        "insert into testimonials (id, project_id, author_name, author_email, author_title, content, rating, tweet_url, status)
         values ($1, $2, $3, $4, $5, $6, $7, $8, 'pending') returning {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(project_id)
    .bind(&new.author_name)
    .bind(&new.author_email)
    .bind(&new.author_title)
    .bind(&new.content)
    .bind(new.rating)
    .bind(&new.tweet_url)
    .fetch_one(&mut *db)
    .await?)
}

/// Newest first; `approved_only` for the project's site.
pub async fn list(
    db: &PgPool,
    project_id: Uuid,
    approved_only: bool,
) -> AppResult<Vec<Testimonial>> {
    Ok(sqlx::query_as::<_, Testimonial>(&format!(
        "select {COLUMNS} from testimonials where project_id = $1 and (not $2 or status = 'approved')
         order by created_at desc, id desc limit 1000"
    ))
    .bind(project_id)
    .bind(approved_only)
    .fetch_all(db)
    .await?)
}

#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Stats {
    pub total: i64,
    pub pending: i64,
    pub approved: i64,
    pub rejected: i64,
    /// Over approved testimonials; `null` when there are none.
    pub average_rating: Option<f64>,
}

pub async fn stats(db: &PgPool, project_id: Uuid) -> AppResult<Stats> {
    Ok(sqlx::query_as!(
        Stats,
        r#"select count(*) as "total!",
            count(*) filter (where status = 'pending') as "pending!",
            count(*) filter (where status = 'approved') as "approved!",
            count(*) filter (where status = 'rejected') as "rejected!",
            (avg(rating) filter (where status = 'approved'))::float8 as average_rating
         from testimonials where project_id = $1"#,
        project_id
    )
    .fetch_one(db)
    .await?)
}

/// Answers the testimonial and the status it had.
pub async fn set_status(
    db: &mut PgConnection,
    project_id: Uuid,
    id: Uuid,
    status: &str,
) -> AppResult<(Testimonial, String)> {
    let previous = sqlx::query_scalar!(
        "select status from testimonials where project_id = $1 and id = $2 for update",
        project_id,
        id
    )
    .fetch_optional(&mut *db)
    .await?
    .ok_or_else(|| AppError::not_found("testimonial"))?;
    let t = sqlx::query_as::<_, Testimonial>(&format!(
        "update testimonials set status = $3, updated_at = now() where project_id = $1 and id = $2 returning {COLUMNS}"
    ))
    .bind(project_id)
    .bind(id)
    .bind(status)
    .fetch_one(&mut *db)
    .await?;
    Ok((t, previous))
}

pub async fn delete(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<()> {
    let done = sqlx::query!(
        "delete from testimonials where project_id = $1 and id = $2",
        project_id,
        id
    )
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::not_found("testimonial"));
    }
    Ok(())
}
