use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::oauth::Identity;
use super::Registration;
use crate::error::on_constraint;
use crate::{AppError, AppResult};

pub use shipmate_types::accounts::User;

/// Emails are compared and stored lowercased, so `Ann@X.org` and `ann@x.org` are one account.
pub fn normalize_email(email: &str) -> String {
    email.trim().to_lowercase()
}

/// A new account (with a password hash, or none for provider sign-in). The very first account of an
/// instance is its admin, however it is made. 409 when the email is taken.
pub async fn create(
    conn: &mut PgConnection,
    email: &str,
    name: &str,
    password_hash: Option<&str>,
) -> AppResult<User> {
    let user = sqlx::query_as!(
        User,
        "insert into users (id, email, name, password_hash, is_admin)
         values ($1, $2, $3, $4, not exists (select 1 from users))
         returning id, email, name, is_admin",
        Uuid::now_v7(),
        normalize_email(email),
        name,
        password_hash
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

/// Development login only: finds the user by email, creating it on first use.
pub async fn upsert_by_email(db: &PgPool, email: &str, name: Option<&str>) -> AppResult<User> {
    let user = sqlx::query_as!(
        User,
        "insert into users (id, email, name, is_admin) values ($1, $2, coalesce($3, ''), not exists (select 1 from users))
         on conflict (email) do update set name = coalesce(nullif($3, ''), users.name)
         returning id, email, name, is_admin",
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
/// its first use it is linked to the account with the same email only when the provider vouches
/// for that email, else a new account is made where the registration policy allows it.
pub async fn upsert_identity(
    db: &PgPool,
    provider: &str,
    who: &Identity,
    registration: Registration,
) -> AppResult<User> {
    let existing = sqlx::query!(
        "select u.id, u.email, u.name, u.is_admin, u.disabled_at is not null as \"disabled!\"
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
        });
    }
    let email = normalize_email(&who.email);
    let mut tx = db.begin().await?;
    let by_email = sqlx::query!(
        "select id, email, name, is_admin, disabled_at is not null as \"disabled!\"
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
        Some(u) if u.disabled => return Err(disabled()),
        Some(u) => User {
            id: u.id,
            email: u.email,
            name: u.name,
            is_admin: u.is_admin,
        },
        None if registration == Registration::Closed => {
            return Err(registration_closed());
        }
        None => create(&mut tx, &email, who.name.as_deref().unwrap_or(""), None).await?,
    };
    sqlx::query!(
        "insert into identities (provider, subject, user_id) values ($1, $2, $3) on conflict do nothing",
        provider,
        who.subject,
        user.id
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(user)
}

pub fn disabled() -> AppError {
    AppError::client(
        axum::http::StatusCode::FORBIDDEN,
        "account_disabled",
        "this account is disabled; ask an instance admin",
    )
}

pub fn registration_closed() -> AppError {
    AppError::client(
        axum::http::StatusCode::FORBIDDEN,
        "registration_closed",
        "registration is closed on this instance; ask for an invite",
    )
}
