use serde::Serialize;
use sqlx::PgPool;
use uuid::Uuid;

use crate::AppResult;

#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct User {
    pub id: Uuid,
    pub email: String,
    pub name: String,
}

/// Finds the user by email, creating it on first sign-in; a later sign-in keeps the name up to date.
pub async fn upsert_by_email(db: &PgPool, email: &str, name: Option<&str>) -> AppResult<User> {
    let email = email.trim().to_lowercase();
    let user = sqlx::query_as!(
        User,
        "insert into users (id, email, name) values ($1, $2, coalesce($3, ''))
         on conflict (email) do update set name = coalesce(nullif($3, ''), users.name)
         returning id, email, name",
        Uuid::now_v7(),
        &email,
        name
    )
    .fetch_one(db)
    .await?;
    Ok(user)
}

/// Signs in through an identity provider: the (provider, subject) pair is the stable identity,
/// linked on first use to the user with that email.
pub async fn upsert_identity(
    db: &PgPool,
    provider: &str,
    subject: &str,
    email: &str,
    name: Option<&str>,
) -> AppResult<User> {
    let existing = sqlx::query_as!(
        User,
        "select u.id, u.email, u.name from identities i join users u on u.id = i.user_id
         where i.provider = $1 and i.subject = $2",
        provider,
        subject
    )
    .fetch_optional(db)
    .await?;
    if let Some(user) = existing {
        return Ok(user);
    }
    let user = upsert_by_email(db, email, name).await?;
    sqlx::query!("insert into identities (provider, subject, user_id) values ($1, $2, $3) on conflict do nothing", provider, subject, user.id)
        .execute(db)
        .await?;
    Ok(user)
}
