//! The instance admin's view of accounts: list, make admin, disable. An instance keeps at least
//! one enabled admin.

use sqlx::PgPool;
use uuid::Uuid;

use super::sessions;
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::accounts::{Account, AccountChanges};

pub async fn list(db: &PgPool) -> AppResult<Vec<Account>> {
    Ok(sqlx::query_as!(
        Account,
        "select id, email, name, is_admin, disabled_at is not null as \"disabled!\", created_at
         from users order by created_at"
    )
    .fetch_all(db)
    .await?)
}

/// Changes `is_admin` and/or `disabled`; 409 `last_admin` when no enabled admin would be left.
/// Disabling ends the account's sessions.
pub async fn update(
    db: &PgPool,
    id: Uuid,
    is_admin: Option<bool>,
    disabled: Option<bool>,
) -> AppResult<Account> {
    let mut tx = db.begin().await?;
    sqlx::query!("select pg_advisory_xact_lock(hashtext('shipmate_admins'))")
        .execute(&mut *tx)
        .await?;
    let account = sqlx::query_as!(
        Account,
        "update users set is_admin = coalesce($2, is_admin),
             disabled_at = case when $3::bool is null then disabled_at
                                when $3 then coalesce(disabled_at, now()) else null end
         where id = $1
         returning id, email, name, is_admin, disabled_at is not null as \"disabled!\", created_at",
        id,
        is_admin,
        disabled
    )
    .fetch_optional(&mut *tx)
    .await?
    .ok_or_else(|| AppError::not_found("user"))?;
    let admins = sqlx::query_scalar!(
        "select count(*) as \"n!\" from users where is_admin and disabled_at is null"
    )
    .fetch_one(&mut *tx)
    .await?;
    if admins == 0 {
        return Err(AppError::conflict(
            "last_admin",
            "the instance keeps at least one enabled admin: make someone else admin first",
        ));
    }
    if account.disabled {
        sessions::revoke_others(&mut tx, id, None).await?;
    }
    tx.commit().await?;
    Ok(account)
}

/// Whether the user exists (for 404s before making a reset link).
pub async fn exists(db: &PgPool, id: Uuid) -> AppResult<bool> {
    Ok(sqlx::query_scalar!(
        "select exists (select 1 from users where id = $1) as \"e!\"",
        id
    )
    .fetch_one(db)
    .await?)
}
