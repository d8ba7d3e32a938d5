//! Password reset links: one hour, single use; only the token's hash is stored, and the link is
//! never logged. Using one sets the password and ends every session of the account.

use sqlx::PgPool;
use uuid::Uuid;

use super::users::User;
use super::{passwords, sessions};
use crate::tokens::{hash_token, random_token};
use crate::{AppError, AppResult};

/// A fresh link for the user: `{public_url}/reset-password?token=...`.
pub async fn create_link(db: &PgPool, user: Uuid, public_url: &str) -> AppResult<String> {
    let token = random_token("", 43);
    sqlx::query!(
        "insert into password_resets (token_hash, user_id, expires_at) values ($1, $2, now() + interval '1 hour')",
        hash_token(&token),
        user
    )
    .execute(db)
    .await?;
    Ok(format!("{public_url}/reset-password?token={token}"))
}

/// The account with this email, if any and enabled (a reset is offered only to those).
pub async fn account_for(db: &PgPool, email: &str) -> AppResult<Option<Uuid>> {
    Ok(sqlx::query_scalar!(
        "select id from users where email = $1 and disabled_at is null",
        super::users::normalize_email(email)
    )
    .fetch_optional(db)
    .await?)
}

/// Uses a reset token: sets the password and ends the account's sessions. Unknown, used and
/// expired tokens all answer 410 `reset_expired` and change nothing.
pub async fn confirm(db: &PgPool, token: &str, password: String) -> AppResult<User> {
    let hash = passwords::hash(password).await?;
    let mut tx = db.begin().await?;
    let user = sqlx::query_scalar!(
        "update password_resets set used_at = now()
         where token_hash = $1 and used_at is null and expires_at > now()
         returning user_id",
        hash_token(token)
    )
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(|| {
        AppError::client(
            axum::http::StatusCode::GONE,
            "reset_expired",
            "this reset link is unknown, used or expired; ask for a new one",
        )
    })?;
    let user = sqlx::query_as!(
        User,
        "update users set password_hash = $2 where id = $1 and disabled_at is null
         returning id, email, name, is_admin",
        user,
        hash
    )
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(super::users::disabled)?;
    sessions::revoke_others(&mut tx, user.id, None).await?;
    tx.commit().await?;
    Ok(user)
}
