//! Email verification for password accounts: a 24-hour, single-use link to the address. Only the
//! token's hash is stored and the link is never logged. A verified address is what lets an
//! identity provider be linked to the account.

use sqlx::PgPool;
use uuid::Uuid;

use super::users::User;
use shipmate_core::tokens::{hash_token, random_token};
use shipmate_core::{AppError, AppResult};

/// At most one verification email per account in this many seconds (the "send again" button).
pub const RESEND_GAP_SECONDS: i32 = 60;

/// A fresh link for the user: `{public_url}/verify-email?token=...`.
pub async fn create_link(db: &PgPool, user: Uuid, public_url: &str) -> AppResult<String> {
    let token = random_token("", 43);
    sqlx::query!(
        "insert into email_verifications (token_hash, user_id, expires_at)
         values ($1, $2, now() + interval '24 hours')",
        hash_token(&token),
        user
    )
    .execute(db)
    .await?;
    Ok(format!("{public_url}/verify-email?token={token}"))
}

/// Whether a verification email went to the user within the last `RESEND_GAP_SECONDS`.
pub async fn sent_recently(db: &PgPool, user: Uuid) -> AppResult<bool> {
    Ok(sqlx::query_scalar!(
        "select exists (select 1 from email_verifications where user_id = $1
                        and created_at > now() - make_interval(secs => $2)) as \"e!\"",
        user,
        f64::from(RESEND_GAP_SECONDS)
    )
    .fetch_one(db)
    .await?)
}

/// Uses a verification token: the account's address is verified from then on. Unknown, used and
/// expired tokens answer 410 `verification_expired` and change nothing.
pub async fn confirm(db: &PgPool, token: &str) -> AppResult<User> {
    let mut tx = db.begin().await?;
    let user = sqlx::query_scalar!(
        "update email_verifications set used_at = now()
         where token_hash = $1 and used_at is null and expires_at > now()
         returning user_id",
        hash_token(token)
    )
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(|| {
        AppError::client(
            shipmate_core::error::Refusal::Gone,
            "verification_expired",
            "this verification link is unknown, used or expired; ask for a new one",
        )
    })?;
    let user = sqlx::query_as!(
        User,
        "update users set email_verified = true where id = $1 and disabled_at is null
         returning id, email, name, is_admin, email_verified",
        user
    )
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(super::users::disabled)?;
    tx.commit().await?;
    Ok(user)
}
