use chrono::{Duration, Utc};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::User;
use shipmate_core::tokens::{hash_token, new_session_token};
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::accounts::SessionInfo;

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

/// A live session: its user and its id.
pub struct Live {
    pub user: User,
    pub session_id: Uuid,
    /// A personal access token rather than a sign-in (it may not make further tokens).
    pub personal_token: bool,
}

/// The user of a live (unexpired, unrevoked) session of an enabled account. `last_used_at` is
/// kept to the minute, so a busy session writes at most once a minute.
pub async fn user_for_token(db: &PgPool, token: &str) -> AppResult<Option<Live>> {
    if !token.starts_with("st_") {
        return Ok(None);
    }
    let Some(row) = sqlx::query!(
        "select s.id as session_id, s.last_used_at, s.name is not null as \"personal_token!\",
                u.id, u.email, u.name, u.is_admin, u.email_verified
         from sessions s join users u on u.id = s.user_id
         where s.token_hash = $1 and s.revoked_at is null and s.expires_at > now()
           and u.disabled_at is null",
        hash_token(token)
    )
    .fetch_optional(db)
    .await?
    else {
        return Ok(None);
    };
    if Utc::now() - row.last_used_at > Duration::minutes(1) {
        sqlx::query!(
            "update sessions set last_used_at = now() where id = $1",
            row.session_id
        )
        .execute(db)
        .await?;
    }
    Ok(Some(Live {
        user: User {
            id: row.id,
            email: row.email,
            name: row.name,
            is_admin: row.is_admin,
            email_verified: row.email_verified,
        },
        session_id: row.session_id,
        personal_token: row.personal_token,
    }))
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

/// The user's live sign-in sessions, newest first (personal access tokens are listed apart).
pub async fn list(db: &PgPool, user: Uuid, current: Uuid) -> AppResult<Vec<SessionInfo>> {
    let rows = sqlx::query!(
        "select id, created_at, last_used_at from sessions
         where user_id = $1 and name is null and revoked_at is null and expires_at > now()
         order by created_at desc",
        user
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| SessionInfo {
            id: r.id,
            created_at: r.created_at,
            last_used_at: r.last_used_at,
            current: r.id == current,
        })
        .collect())
}

/// Ends one of the user's sign-in sessions, or with `personal_token` one of their personal access
/// tokens; 404 when it is not theirs, not of that kind, or already ended.
pub async fn revoke_by_id(
    db: &PgPool,
    user: Uuid,
    id: Uuid,
    personal_token: bool,
) -> AppResult<()> {
    let done = sqlx::query!(
        "update sessions set revoked_at = now()
         where id = $1 and user_id = $2 and (name is not null) = $3 and revoked_at is null
           and expires_at > now()",
        id,
        user,
        personal_token
    )
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::not_found(if personal_token {
            "token"
        } else {
            "session"
        }));
    }
    Ok(())
}

/// Ends every session of the user but `keep`, personal access tokens included (after a password
/// change or reset, or all of them when an account is disabled).
pub async fn revoke_others(
    conn: &mut PgConnection,
    user: Uuid,
    keep: Option<Uuid>,
) -> AppResult<()> {
    sqlx::query!(
        "update sessions set revoked_at = now()
         where user_id = $1 and revoked_at is null and ($2::uuid is null or id <> $2)",
        user,
        keep
    )
    .execute(conn)
    .await?;
    Ok(())
}
