//! Shared dashboards: a secret link to a read-only view of a project's analytics, no sign-in.
//! The token is kept as given (the link is shown again in the list, like Plausible's shared
//! links); deleting the row revokes it. A link locked to a segment shows that segment only: its
//! filters are added to whatever the visitor asks for, never removed.

use shipmate_types::analytics::ShareLink;
use sqlx::PgPool;
use uuid::Uuid;

use crate::query::Filters;
use shipmate_core::tokens::random_token;
use shipmate_core::{AppError, AppResult};

fn url(public_url: &str, token: &str) -> String {
    format!("{public_url}/share/{token}")
}

pub async fn create(
    db: &PgPool,
    public_url: &str,
    project_id: Uuid,
    segment_id: Option<Uuid>,
) -> AppResult<ShareLink> {
    if let Some(segment) = segment_id {
        // Another project's segment is as unknown as a missing one.
        crate::segments::filters(db, project_id, segment).await?;
    }
    let token = random_token("shr_", 32);
    let row = sqlx::query!(
        "insert into analytics_shares (id, project_id, token, segment_id) values ($1, $2, $3, $4)
         returning id, created_at",
        Uuid::now_v7(),
        project_id,
        token,
        segment_id
    )
    .fetch_one(db)
    .await?;
    Ok(ShareLink {
        id: row.id,
        url: url(public_url, &token),
        segment_id,
        created_at: row.created_at,
    })
}

pub async fn list(db: &PgPool, public_url: &str, project_id: Uuid) -> AppResult<Vec<ShareLink>> {
    Ok(sqlx::query!(
        "select id, token, segment_id, created_at from analytics_shares where project_id = $1
         order by created_at, id",
        project_id
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| ShareLink {
        id: r.id,
        url: url(public_url, &r.token),
        segment_id: r.segment_id,
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

/// What a live token opens: its project, and the filters of the segment it is locked to (none:
/// all the project's figures).
pub async fn opened_by(db: &PgPool, token: &str) -> AppResult<(Uuid, Filters)> {
    let share = sqlx::query!(
        "select project_id, segment_id from analytics_shares where token = $1",
        token
    )
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("shared dashboard"))?;
    let filters = match share.segment_id {
        Some(segment) => crate::segments::filters(db, share.project_id, segment).await?,
        None => Filters::default(),
    };
    Ok((share.project_id, filters))
}
