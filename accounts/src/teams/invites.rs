//! Invites: a link valid 7 days, used once, bound to the invited email. Only the token's hash is
//! stored, so the link is shown once, when it is made.

use chrono::Utc;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::Role;
use crate::auth::policy::{normalize_email, registration_closed};
use shipmate_core::tokens::{hash_token, random_token};
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::teams::{Invite, InviteAccepted, InvitePreview, InviteProject, NewInvite};

pub const INVITE_DAYS: i64 = 7;

/// Invites `email` with `role`, replacing a pending invite of the same email; 409 when the email
/// already belongs to a member.
pub async fn create(
    db: &PgPool,
    project: Uuid,
    email: &str,
    role: Role,
    invited_by: Uuid,
    public_url: &str,
) -> AppResult<Invite> {
    let email = normalize_email(email);
    let mut tx = db.begin().await?;
    let member = sqlx::query_scalar!(
        "select exists (select 1 from project_members m join users u on u.id = m.user_id
                        where m.project_id = $1 and u.email = $2) as \"e!\"",
        project,
        &email
    )
    .fetch_one(&mut *tx)
    .await?;
    if member {
        return Err(AppError::conflict(
            "conflict",
            "this email already belongs to a member of the project",
        ));
    }
    sqlx::query!(
        "delete from invites where project_id = $1 and email = $2 and accepted_at is null",
        project,
        &email
    )
    .execute(&mut *tx)
    .await?;
    let token = random_token("", 43);
    let row = sqlx::query!(
        "insert into invites (id, project_id, email, role, token_hash, invited_by, expires_at)
         values ($1, $2, $3, $4, $5, $6, now() + make_interval(days => $7))
         returning id, expires_at, created_at",
        Uuid::now_v7(),
        project,
        &email,
        role.as_str(),
        hash_token(&token),
        invited_by,
        INVITE_DAYS as i32
    )
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Invite {
        id: row.id,
        email,
        role,
        url: Some(format!("{public_url}/invite/{token}")),
        expires_at: row.expires_at,
        created_at: row.created_at,
    })
}

/// The project's pending (unused, unexpired) invites, newest first.
pub async fn list_pending(db: &PgPool, project: Uuid) -> AppResult<Vec<Invite>> {
    let rows = sqlx::query!(
        "select id, email, role, expires_at, created_at from invites
         where project_id = $1 and accepted_at is null and expires_at > now()
         order by created_at desc",
        project
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| Invite {
            id: r.id,
            email: r.email,
            role: super::role_of(r.role),
            url: None,
            expires_at: r.expires_at,
            created_at: r.created_at,
        })
        .collect())
}

pub async fn delete(db: &PgPool, project: Uuid, id: Uuid) -> AppResult<()> {
    let done = sqlx::query!(
        "delete from invites where id = $1 and project_id = $2 and accepted_at is null",
        id,
        project
    )
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::not_found("invite"));
    }
    Ok(())
}

/// The live invite behind a token: 404 when unknown, 410 `invite_expired` when used or expired.
pub async fn preview(db: &PgPool, token: &str) -> AppResult<InvitePreview> {
    let row = sqlx::query!(
        "select i.email, i.role, i.expires_at, i.accepted_at, p.id as project_id, p.name as project_name
         from invites i join projects p on p.id = i.project_id where i.token_hash = $1",
        hash_token(token)
    )
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("invite"))?;
    if row.accepted_at.is_some() || row.expires_at <= Utc::now() {
        return Err(expired());
    }
    Ok(InvitePreview {
        email: row.email,
        role: super::role_of(row.role),
        project: InviteProject {
            id: row.project_id,
            name: row.project_name,
        },
        expires_at: row.expires_at,
    })
}

/// Whether `email` holds a pending (unused, unexpired) invite to any project: under the `invite`
/// policy, what lets an identity provider make a new account.
pub async fn pending_for(conn: &mut PgConnection, email: &str) -> AppResult<bool> {
    Ok(sqlx::query_scalar!(
        "select exists (select 1 from invites
                        where email = $1 and accepted_at is null and expires_at > now()) as \"e!\"",
        normalize_email(email)
    )
    .fetch_one(conn)
    .await?)
}

/// Checks a registration's invite before any password is hashed: 404 unknown, 410 used or
/// expired, 403 `registration_closed` when it was made for another address.
pub async fn check_for_registration(db: &PgPool, token: &str, email: &str) -> AppResult<()> {
    if preview(db, token).await?.email != normalize_email(email) {
        return Err(registration_closed());
    }
    Ok(())
}

/// Accepts the invite for the user with `email`, inside the caller's transaction: 404 unknown,
/// 410 used or expired, 403 for another email. Someone already a member keeps their role, so an
/// invite can never lower it. Answers (project id, the member's role).
pub async fn accept(
    conn: &mut PgConnection,
    token: &str,
    user: Uuid,
    email: &str,
) -> AppResult<(Uuid, Role)> {
    let row = sqlx::query!(
        "select id, project_id, email, role, expires_at, accepted_at from invites
         where token_hash = $1 for update",
        hash_token(token)
    )
    .fetch_optional(&mut *conn)
    .await?
    .ok_or_else(|| AppError::not_found("invite"))?;
    if row.accepted_at.is_some() || row.expires_at <= Utc::now() {
        return Err(expired());
    }
    if row.email != normalize_email(email) {
        return Err(AppError::forbidden(
            "this invite is for another email address; sign in with the invited one",
        ));
    }
    sqlx::query!(
        "update invites set accepted_at = now() where id = $1",
        row.id
    )
    .execute(&mut *conn)
    .await?;
    let role = sqlx::query_scalar!(
        "with added as (
             insert into project_members (project_id, user_id, role) values ($1, $2, $3)
             on conflict (project_id, user_id) do nothing returning role)
         select role as \"role!\" from added
         union all
         select role from project_members where project_id = $1 and user_id = $2
         limit 1",
        row.project_id,
        user,
        row.role
    )
    .fetch_one(&mut *conn)
    .await?;
    Ok((row.project_id, super::role_of(role)))
}

pub fn expired() -> AppError {
    AppError::client(
        shipmate_core::error::Refusal::Gone,
        "invite_expired",
        "this invite was already used or has expired; ask for a new one",
    )
}
