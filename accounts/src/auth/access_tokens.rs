//! Personal access tokens: named sessions for scripts and the CLI (as GitHub's). A token is a
//! session row with a name; it acts as its user's session, outlives the session that made it, and
//! ends when revoked, when it expires, or with the user's other sessions (password change or
//! reset, a disabled account). Revoking one is `sessions::revoke_by_id`.

use sqlx::PgPool;
use uuid::Uuid;

use shipmate_core::tokens::{hash_token, new_session_token};
use shipmate_core::AppResult;

pub use shipmate_types::accounts::{AccessToken, AccessTokenCreated, NewAccessToken};

pub const DEFAULT_DAYS: i64 = 90;

/// A new token for the user; the token itself is in the answer only.
pub async fn create(db: &PgPool, user: Uuid, new: NewAccessToken) -> AppResult<AccessTokenCreated> {
    let token = new_session_token();
    let days = new.expires_in_days.unwrap_or(DEFAULT_DAYS) as i32;
    let row = sqlx::query!(
        "insert into sessions (token_hash, user_id, expires_at, name)
         values ($1, $2, now() + make_interval(days => $3), $4)
         returning id, created_at, expires_at",
        hash_token(&token),
        user,
        days,
        &new.name
    )
    .fetch_one(db)
    .await?;
    Ok(AccessTokenCreated {
        id: row.id,
        name: new.name,
        token,
        created_at: row.created_at,
        expires_at: row.expires_at,
    })
}

/// The user's live tokens, newest first.
pub async fn list(db: &PgPool, user: Uuid) -> AppResult<Vec<AccessToken>> {
    Ok(sqlx::query_as!(
        AccessToken,
        "select id, name as \"name!\", created_at, expires_at, last_used_at from sessions
         where user_id = $1 and name is not null and revoked_at is null and expires_at > now()
         order by created_at desc",
        user
    )
    .fetch_all(db)
    .await?)
}
