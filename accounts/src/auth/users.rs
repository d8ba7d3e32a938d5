use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::oauth::Identity;
use super::policy::{normalize_email, registration_closed};
use super::Registration;
use crate::teams::invites;
use shipmate_core::error::on_constraint;
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::accounts::User;

/// What a new account is made with.
pub struct NewUser<'a> {
    pub email: &'a str,
    pub name: &'a str,
    /// None for an account that signs in only through a provider.
    pub password_hash: Option<&'a str>,
    /// Only the first-run setup makes an admin.
    pub is_admin: bool,
    pub email_verified: bool,
}

/// A new account; 409 when the email is taken.
pub async fn create(conn: &mut PgConnection, new: NewUser<'_>) -> AppResult<User> {
    let user = sqlx::query_as!(
        User,
        "insert into users (id, email, name, password_hash, is_admin, email_verified)
         values ($1, $2, $3, $4, $5, $6)
         returning id, email, name, is_admin, email_verified",
        Uuid::now_v7(),
        normalize_email(new.email),
        new.name,
        new.password_hash,
        new.is_admin,
        new.email_verified
    )
    .fetch_one(conn)
    .await
    .map_err(on_constraint(
        "users_email_key",
        "conflict",
        "an account with this email already exists",
    ))?;
    Ok(user)
}

/// Development login only: finds the user by email, creating it on first use (verified, and the
/// instance's admin when it is the first account, as a development instance has no setup step).
pub async fn upsert_by_email(db: &PgPool, email: &str, name: Option<&str>) -> AppResult<User> {
    let user = sqlx::query_as!(
        User,
        "insert into users (id, email, name, is_admin, email_verified)
         values ($1, $2, coalesce($3, ''), not exists (select 1 from users), true)
         on conflict (email) do update set name = coalesce(nullif($3, ''), users.name)
         returning id, email, name, is_admin, email_verified",
        Uuid::now_v7(),
        normalize_email(email),
        name
    )
    .fetch_one(db)
    .await?;
    Ok(user)
}

/// Whether any account exists yet (the first-run setup is open until one does).
pub async fn any_exist(db: &PgPool) -> AppResult<bool> {
    Ok(
        sqlx::query_scalar!("select exists (select 1 from users) as \"e!\"")
            .fetch_one(db)
            .await?,
    )
}

/// Signs in through an identity provider. The (provider, subject) pair is the stable identity; on
/// its first use it is linked to the account with the same email only when both the provider and
/// the account vouch for that email (the pre-claim attack: a password account registered with
/// someone else's address must never receive their provider sign-in), else a new account is made
/// where the registration policy allows it: under `invite`, only for an address with a pending
/// invite. Until the first-run setup made the admin, nobody gets in this way.
pub async fn upsert_identity(
    db: &PgPool,
    provider: &str,
    who: &Identity,
    registration: Registration,
) -> AppResult<User> {
    if !any_exist(db).await? {
        return Err(setup_required());
    }
    let existing = sqlx::query!(
        "select u.id, u.email, u.name, u.is_admin, u.email_verified,
                u.disabled_at is not null as \"disabled!\"
         from identities i join users u on u.id = i.user_id
         where i.provider = $1 and i.subject = $2",
        provider,
        who.subject
    )
    .fetch_optional(db)
    .await?;
    if let Some(u) = existing {
        if u.disabled {
            return Err(disabled());
        }
        return Ok(User {
            id: u.id,
            email: u.email,
            name: u.name,
            is_admin: u.is_admin,
            email_verified: u.email_verified,
        });
    }
    let email = normalize_email(&who.email);
    let mut tx = db.begin().await?;
    let by_email = sqlx::query!(
        "select id, email, name, is_admin, email_verified, disabled_at is not null as \"disabled!\"
         from users where email = $1 for update",
        &email
    )
    .fetch_optional(&mut *tx)
    .await?;
    let user = match by_email {
        Some(_) if !who.email_verified => {
            return Err(AppError::forbidden(
                "an account with this email already exists, and the identity provider did not confirm \
                 that the address is yours; sign in with your password, then link the provider",
            ));
        }
        Some(u) if !u.email_verified => {
            return Err(AppError::forbidden(
                "an account with this email already exists, but its address was never confirmed; \
                 sign in with its password and confirm the address first",
            ));
        }
        Some(u) if u.disabled => return Err(disabled()),
        Some(u) => User {
            id: u.id,
            email: u.email,
            name: u.name,
            is_admin: u.is_admin,
            email_verified: u.email_verified,
        },
        None => {
            let allowed = match registration {
                Registration::Open => true,
                Registration::Closed => false,
                // An invite is for an address: only a provider that vouches for it may claim it.
                Registration::Invite => {
                    who.email_verified && invites::pending_for(&mut tx, &email).await?
                }
            };
            if !allowed {
                return Err(registration_closed());
            }
            let new = NewUser {
                email: &email,
                name: who.name.as_deref().unwrap_or(""),
                password_hash: None,
                is_admin: false,
                email_verified: who.email_verified,
            };
            create(&mut tx, new).await?
        }
    };
    sqlx::query!(
        "insert into identities (provider, subject, user_id) values ($1, $2, $3) on conflict do nothing",
        provider,
        who.subject
        ,user.id
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(user)
}

pub fn disabled() -> AppError {
    AppError::client(
        shipmate_core::error::Refusal::Forbidden,
        "account_disabled",
        "this account is disabled; ask an instance admin",
    )
}

/// Every way to an account but the first-run setup, while no account exists.
pub fn setup_required() -> AppError {
    AppError::client(
        shipmate_core::error::Refusal::Forbidden,
        "setup_required",
        "this instance is not set up yet: open the setup link printed on the server's log first",
    )
}
