//! Password reset links: one hour, single use; only the token's hash is stored, and the link is
//! never logged. Using one sets the password and ends every session of the account. A completed
//! reset, a password change and a new admin-made link end every other unused link.

use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::users::User;
use super::{passwords, sessions};
use shipmate_core::tokens::{hash_token, random_token};
use shipmate_core::{AppError, AppResult};

/// How a link reaches its user: by email (at most one per `EMAIL_GAP_MINUTES`), or from an admin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Email,
    Admin,
}

/// At most one reset email per account in this many minutes, so the form cannot flood an inbox.
pub const EMAIL_GAP_MINUTES: i32 = 5;

/// A fresh link for the user: `{public_url}/reset-password?token=...`. An admin-made link ends the
/// user's other unused links.
pub async fn create_link(db: &PgPool, user: Uuid, public_url: &str, via: Via) -> AppResult<String> {
    let token = random_token("", 43);
    let mut tx = db.begin().await?;
    if via == Via::Admin {
        end_unused(&mut tx, user).await?;
    }
    sqlx::query!(
        "insert into password_resets (token_hash, user_id, expires_at, emailed)
         values ($1, $2, now() + interval '1 hour', $3)",
        hash_token(&token),
        user,
        via == Via::Email
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(format!("{public_url}/reset-password?token={token}"))
}

/// Whether a reset email went to the user within the last `EMAIL_GAP_MINUTES`.
pub async fn emailed_recently(db: &PgPool, user: Uuid) -> AppResult<bool> {
    Ok(sqlx::query_scalar!(
        "select exists (select 1 from password_resets where user_id = $1 and emailed
                        and created_at > now() - make_interval(mins => $2)) as \"e!\"",
        user,
        EMAIL_GAP_MINUTES
    )
    .fetch_one(db)
    .await?)
}

/// Ends every unused link of the user.
pub async fn end_unused(conn: &mut PgConnection, user: Uuid) -> AppResult<()> {
    sqlx::query!(
        "update password_resets set used_at = now() where user_id = $1 and used_at is null",
        user
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// The account with this email, if any and enabled (a reset is offered only to those).
pub async fn account_for(db: &PgPool, email: &str) -> AppResult<Option<Uuid>> {
    Ok(sqlx::query_scalar!(
        "select id from users where email = $1 and disabled_at is null",
        super::policy::normalize_email(email)
    )
    .fetch_optional(db)
    .await?)
}

/// Uses a reset token: sets the password, ends the account's sessions and other links, and marks
/// the address verified (the link reached it). Unknown, used and expired tokens all answer 410
/// `reset_expired` and change nothing; they are refused before the password is hashed.
pub async fn confirm(db: &PgPool, token: &str, password: String) -> AppResult<User> {
    let live = sqlx::query_scalar!(
        "select exists (select 1 from password_resets
                        where token_hash = $1 and used_at is null and expires_at > now()) as \"e!\"",
        hash_token(token)
    )
    .fetch_one(db)
    .await?;
    if !live {
        return Err(expired());
    }
    let hash = passwords::hash(password).await?;
    let mut tx = db.begin().await?;
    // Taken again under the row's update: two uses racing through the check set one password.
    let user = sqlx::query_scalar!(
        "update password_resets set used_at = now()
         where token_hash = $1 and used_at is null and expires_at > now()
         returning user_id",
        hash_token(token)
    )
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(expired)?;
    let user = sqlx::query_as!(
        User,
        "update users set password_hash = $2, email_verified = true
         where id = $1 and disabled_at is null
         returning id, email, name, is_admin, email_verified",
        user,
        hash
    )
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(super::users::disabled)?;
    end_unused(&mut tx, user.id).await?;
    sessions::revoke_others(&mut tx, user.id, None).await?;
    tx.commit().await?;
    Ok(user)
}

fn expired() -> AppError {
    AppError::client(
        shipmate_core::error::Refusal::Gone,
        "reset_expired",
        "this reset link is unknown, used or expired; ask for a new one",
    )
}
