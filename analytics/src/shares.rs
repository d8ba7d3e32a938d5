//! Shared dashboards: a secret link to a read-only view of a project's analytics, no sign-in.
//! The token is kept as given (the link is shown again in the list, like Plausible's shared
//! links); deleting the row revokes it.

use shipmate_types::analytics::ShareLink;
use sqlx::PgPool;
use uuid::Uuid;

use shipmate_core::tokens::random_token;
use shipmate_core::{AppError, AppResult};

fn url(public_url: &str, token: &str) -> String {
    format!("{public_url}/share/{token}")
}

pub async fn create(db: &PgPool, public_url: &str, project_id: Uuid) -> AppResult<ShareLink> {
    let token = random_token("shr_", 32);
    let row = sqlx::query!(
        "insert into analytics_shares (id, project_id, token) values ($1, $2, $3) returning id, created_at",
        Uuid::now_v7(),
        project_id,
        token
    )
    .fetch_one(db)
    .await?;
    Ok(ShareLink {
        id: row.id,
        url: url(public_url, &token),
        created_at: row.created_at,
    })
}

pub async fn list(db: &PgPool, public_url: &str, project_id: Uuid) -> AppResult<Vec<ShareLink>> {
    Ok(sqlx::query!(
        "select id, token, created_at from analytics_shares where project_id = $1 order by created_at, id",
        project_id
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| ShareLink {
        id: r.id,
        url: url(public_url, &r.token),
        created_at: r.created_at,
    })
    .collect())
}

pub async fn revoke(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<()> {
    let gone = sqlx::query!(
        "delete from analytics_shares where project_id = $1 and id = $2",
        project_id,
        id
    )
    .execute(db)
    .await?
    .rows_affected();
    if gone == 0 {
        return Err(AppError::not_found("share link"));
    }
    Ok(())
}

/// The project a live token opens.
pub async fn project_of(db: &PgPool, token: &str) -> AppResult<Uuid> {
    sqlx::query_scalar!(
        "select project_id from analytics_shares where token = $1",
        token
    )
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("shared dashboard"))
}
