use chrono::{Duration, Utc};
use sqlx::PgPool;

use super::User;
use crate::tokens::{hash_token, new_session_token};
use crate::AppResult;

pub const SESSION_DAYS: i64 = 30;

/// Issues a new session token; only its hash is stored.
pub async fn create(db: &PgPool, user: &User) -> AppResult<String> {
    let token = new_session_token();
    sqlx::query!(
        "insert into sessions (token_hash, user_id, expires_at) values ($1, $2, $3)",
        hash_token(&token),
        user.id,
        Utc::now() + Duration::days(SESSION_DAYS)
    )
    .execute(db)
    .await?;
    Ok(token)
}

/// The user of a live (unexpired, unrevoked) session.
pub async fn user_for_token(db: &PgPool, token: &str) -> AppResult<Option<User>> {
    if !token.starts_with("st_") {
        return Ok(None);
    }
    let user = sqlx::query_as!(
        User,
        "select u.id, u.email, u.name from sessions s join users u on u.id = s.user_id
         where s.token_hash = $1 and s.revoked_at is null and s.expires_at > now()",
        hash_token(token)
    )
    .fetch_optional(db)
    .await?;
    Ok(user)
}

pub async fn revoke(db: &PgPool, token: &str) -> AppResult<()> {
    sqlx::query!(
        "update sessions set revoked_at = now() where token_hash = $1 and revoked_at is null",
        hash_token(token)
    )
    .execute(db)
    .await?;
    Ok(())
}
