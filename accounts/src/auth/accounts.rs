//! Email and password accounts: the first-run setup, registration under the instance's policy,
//! sign-in with a per-email failure limit, and password changes.

use shipmate_core::error::Refusal;
use sqlx::PgPool;
use uuid::Uuid;

use super::policy::{normalize_email, registration_closed};
use super::users::{self, NewUser, User};
use super::{passwords, resets, sessions, Registration};
use crate::teams::invites;
use shipmate_core::{AppError, AppResult};

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
    let new = NewUser {
        email,
        name,
        password_hash: Some(&hash),
        is_admin: true,
        email_verified: true,
    };
    let user = users::create(&mut tx, new).await?;
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
/// under any policy that lets the account in); `closed` lets nobody in, and nobody gets in before
/// the first-run setup. The invite is checked before the password is hashed, so refusals cost
/// nothing. An account made through an invite is verified (the link reached that address); any
/// other needs the verification email.
pub async fn register(
    db: &PgPool,
    policy: Registration,
    email: &str,
    name: &str,
    password: String,
    invite: Option<&str>,
) -> AppResult<User> {
    if !users::any_exist(db).await? {
        return Err(users::setup_required());
    }
    if policy == Registration::Closed || (policy == Registration::Invite && invite.is_none()) {
        return Err(registration_closed());
    }
    if let Some(token) = invite {
        invites::check_for_registration(db, token, email).await?;
    }
    let hash = passwords::hash(password).await?;
    let mut tx = db.begin().await?;
    let new = NewUser {
        email,
        name,
        password_hash: Some(&hash),
        is_admin: false,
        email_verified: invite.is_some(),
    };
    let user = users::create(&mut tx, new).await?;
    if let Some(token) = invite {
        invites::accept(&mut tx, token, user.id, &user.email).await?;
    }
    tx.commit().await?;
    Ok(user)
}

/// Checks an email and password. Unknown emails and wrong passwords answer the same 401 after
/// the same work. The attempt is counted before the password is checked, so even concurrent tries
/// make at most `MAX_FAILURES` checks in the window; after that every attempt answers 429. A
/// successful attempt takes its count back.
pub async fn login(db: &PgPool, email: &str, password: String) -> AppResult<User> {
    let email = normalize_email(email);
    let attempt = count_attempt(db, &email).await?;
    let account = sqlx::query!(
        "select id, email, name, is_admin, email_verified, password_hash,
                disabled_at is not null as \"disabled!\"
         from users where email = $1",
        &email
    )
    .fetch_optional(db)
    .await?;
    let stored = account.as_ref().and_then(|a| a.password_hash.clone());
    if !passwords::verify(stored, password).await? {
        return Err(AppError::client(
            Refusal::Unauthorized,
            "invalid_credentials",
            "wrong email or password",
        ));
    }
    sqlx::query!("delete from login_failures where id = $1", attempt)
        .execute(db)
        .await?;
    match account {
        Some(a) if a.disabled => Err(users::disabled()),
        Some(a) => Ok(User {
            id: a.id,
            email: a.email,
            name: a.name,
            is_admin: a.is_admin,
            email_verified: a.email_verified,
        }),
        None => Err(AppError::Internal(anyhow::anyhow!(
            "a password verified without an account"
        ))),
    }
}

/// Records an attempt for the email unless the window already holds `MAX_FAILURES`: one email's
/// attempts are counted one at a time (an advisory lock), so a burst cannot all see room.
async fn count_attempt(db: &PgPool, email: &str) -> AppResult<i64> {
    let mut tx = db.begin().await?;
    sqlx::query!(
        "select pg_advisory_xact_lock(hashtext('shipmate_login:' || $1))",
        email
    )
    .execute(&mut *tx)
    .await?;
    let recent = sqlx::query!(
        "select count(*) as \"n!\",
                extract(epoch from min(failed_at) + make_interval(mins => $2::int) - now())::float8 as \"wait\"
         from (select failed_at from login_failures
               where email = $1 and failed_at > now() - make_interval(mins => $2::int)
               order by failed_at desc limit $3) f",
        email,
        FAILURE_WINDOW_MINUTES as i32,
        MAX_FAILURES
    )
    .fetch_one(&mut *tx)
    .await?;
    if recent.n >= MAX_FAILURES {
        return Err(AppError::RateLimited {
            retry_after_secs: recent.wait.unwrap_or(1.0).ceil().max(1.0) as u64,
        });
    }
    let id = sqlx::query_scalar!(
        "insert into login_failures (email) values ($1) returning id",
        email
    )
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(id)
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
    resets::end_unused(&mut tx, user).await?;
    tx.commit().await?;
    Ok(())
}
