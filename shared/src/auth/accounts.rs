//! Email and password accounts: the first-run setup, registration under the instance's policy,
//! sign-in with a per-email failure limit, and password changes.

use axum::http::StatusCode;
use sqlx::PgPool;
use uuid::Uuid;

use super::users::{self, normalize_email, User};
use super::{passwords, sessions, Registration};
use crate::teams::invites;
use crate::{AppError, AppResult};

/// Failures for one email within `FAILURE_WINDOW_MINUTES` that lock its sign-in.
pub const MAX_FAILURES: i64 = 10;
pub const FAILURE_WINDOW_MINUTES: i64 = 15;

/// Creates the instance admin while no account exists; 409 `already_set_up` afterwards.
pub async fn setup(db: &PgPool, email: &str, name: &str, password: String) -> AppResult<User> {
    let hash = passwords::hash(password).await?;
    let mut tx = db.begin().await?;
    // One setup at a time: two racing first-run forms must not both make an admin.
    sqlx::query!("select pg_advisory_xact_lock(hashtext('shipmate_setup'))")
        .execute(&mut *tx)
        .await?;
    let taken = sqlx::query_scalar!("select exists (select 1 from users) as \"e!\"")
        .fetch_one(&mut *tx)
        .await?;
    if taken {
        return Err(already_set_up());
    }
    let user = users::create(&mut tx, email, name, Some(&hash)).await?;
    tx.commit().await?;
    Ok(user)
}

pub fn already_set_up() -> AppError {
    AppError::conflict(
        "already_set_up",
        "this instance is already set up; sign in instead",
    )
}

/// A new password account. `invite` lets it in under the `invite` policy (and is accepted at once,
/// under any policy that lets the account in); `closed` lets nobody in.
pub async fn register(
    db: &PgPool,
    policy: Registration,
    email: &str,
    name: &str,
    password: String,
    invite: Option<&str>,
) -> AppResult<User> {
    if policy == Registration::Closed || (policy == Registration::Invite && invite.is_none()) {
        return Err(users::registration_closed());
    }
    let hash = passwords::hash(password).await?;
    let mut tx = db.begin().await?;
    let user = users::create(&mut tx, email, name, Some(&hash)).await?;
    if let Some(token) = invite {
        invites::accept(&mut tx, token, user.id, &user.email).await?;
    }
    tx.commit().await?;
    Ok(user)
}

/// Checks an email and password. Unknown emails and wrong passwords answer the same 401 after
/// the same work; after `MAX_FAILURES` failures in the window every attempt answers 429.
pub async fn login(db: &PgPool, email: &str, password: String) -> AppResult<User> {
    let email = normalize_email(email);
    let recent = sqlx::query!(
        "select count(*) as \"n!\",
                extract(epoch from min(failed_at) + make_interval(mins => $2::int) - now())::float8 as \"wait\"
         from (select failed_at from login_failures
               where email = $1 and failed_at > now() - make_interval(mins => $2::int)
               order by failed_at desc limit $3) f",
        &email,
        FAILURE_WINDOW_MINUTES as i32,
        MAX_FAILURES
    )
    .fetch_one(db)
    .await?;
    if recent.n >= MAX_FAILURES {
        return Err(AppError::RateLimited {
            retry_after_secs: recent.wait.unwrap_or(1.0).ceil().max(1.0) as u64,
        });
    }
    let account = sqlx::query!(
        "select id, email, name, is_admin, password_hash, disabled_at is not null as \"disabled!\"
         from users where email = $1",
        &email
    )
    .fetch_optional(db)
    .await?;
    let stored = account.as_ref().and_then(|a| a.password_hash.clone());
    if !passwords::verify(stored, password).await? {
        sqlx::query!("insert into login_failures (email) values ($1)", &email)
            .execute(db)
            .await?;
        return Err(AppError::client(
            StatusCode::UNAUTHORIZED,
            "invalid_credentials",
            "wrong email or password",
        ));
    }
    match account {
        Some(a) if a.disabled => Err(users::disabled()),
        Some(a) => Ok(User {
            id: a.id,
            email: a.email,
            name: a.name,
            is_admin: a.is_admin,
        }),
        None => Err(AppError::Internal(anyhow::anyhow!(
            "a password verified without an account"
        ))),
    }
}

/// Sets a new password, checking the current one when the account has one; every other session
/// of the user ends.
pub async fn change_password(
    db: &PgPool,
    user: Uuid,
    session: Uuid,
    current: Option<String>,
    password: String,
) -> AppResult<()> {
    let stored = sqlx::query_scalar!("select password_hash from users where id = $1", user)
        .fetch_one(db)
        .await?;
    if stored.is_some() {
        let ok = match current {
            Some(c) => passwords::verify(stored, c).await?,
            None => false,
        };
        if !ok {
            return Err(AppError::invalid(
                "invalid_credentials",
                "current_password",
                "is not this account's password",
            ));
        }
    }
    let hash = passwords::hash(password).await?;
    let mut tx = db.begin().await?;
    sqlx::query!(
        "update users set password_hash = $2 where id = $1",
        user,
        hash
    )
    .execute(&mut *tx)
    .await?;
    sessions::revoke_others(&mut tx, user, Some(session)).await?;
    tx.commit().await?;
    Ok(())
}
