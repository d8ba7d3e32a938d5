//! Testimonials: collected as `pending`, shown on the project's site once approved.

use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use shipmate_core::params::Paging;
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::testimonials::{
    ModerationDecision, NewTestimonial, Stats, Testimonial, TestimonialsWithStats,
};
pub use shipmate_types::{Moderation, TestimonialStatus};

const COLUMNS: &str =
    "id, project_id, author_name, author_email, author_title, content, rating, tweet_url, status, created_at, updated_at";

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
/// A page of the project's testimonials (approved only for the public), newest first, with the total.
pub async fn list(
    db: &PgPool,
    project_id: Uuid,
    approved_only: bool,
    paging: Paging,
) -> AppResult<(Vec<Testimonial>, i64)> {
    let data = sqlx::query_as::<_, Testimonial>(&format!(
        "select {COLUMNS} from testimonials where project_id = $1 and (not $2 or status = 'approved')
         order by created_at desc, id desc limit $3 offset $4"
    ))
    .bind(project_id)
    .bind(approved_only)
    .bind(paging.per_page)
    .bind(paging.offset())
    .fetch_all(db)
    .await?;
    let total = sqlx::query_scalar!(
        r#"select count(*) as "n!" from testimonials where project_id = $1 and (not $2 or status = 'approved')"#,
        project_id,
        approved_only
    )
    .fetch_one(db)
    .await?;
    Ok((data, total))
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
    status: TestimonialStatus,
) -> AppResult<(Testimonial, TestimonialStatus)> {
    let previous = sqlx::query_scalar!(
        r#"select status as "status: TestimonialStatus" from testimonials where project_id = $1 and id = $2 for update"#,
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
    .bind(status.as_str())
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
