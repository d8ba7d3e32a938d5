//! End-user identity: a customer's backend signs a JWT (HS256) with the project's identify secret;
//! we exchange it for an `eu_` session that votes, comments and submits in that project only.
//! End users are their own table, keyed by project and `sub`, never dashboard accounts.

use chrono::{Duration, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use sqlx::PgPool;
use uuid::Uuid;

use shipmate_core::tokens::{hash_token, random_token};
use shipmate_core::{AppError, AppResult};
use shipmate_types::input::is_email;

pub use shipmate_types::accounts::{EndUserInfo, Identified, IdentifyRequest, IdentifySecret};

/// The prefix that tells an end-user session from a dashboard session.
pub const SESSION_PREFIX: &str = "eu_";
const SESSION_DAYS: i64 = 30;
/// The furthest ahead an identify token's `exp` may be: a leaked token stays useful for a day.
const MAX_LIFETIME_HOURS: i64 = 24;

/// An identified end user, as a request carries them.
#[derive(Debug, Clone)]
pub struct EndUser {
    pub id: Uuid,
    pub project_id: Uuid,
    pub name: String,
    pub email: Option<String>,
}

#[derive(Deserialize)]
struct Claims {
    sub: String,
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    name: Option<String>,
    exp: i64,
}

fn invalid(detail: &str) -> AppError {
    AppError::client(
        shipmate_core::error::Refusal::Unauthorized,
        "invalid_identity",
        detail.to_owned(),
    )
}

/// A new identify secret for the project; the previous one stops verifying at once, and every
/// end-user session opened with a token it signed ends (a leaked secret's sessions go with it).
pub async fn rotate_secret(db: &PgPool, project_id: Uuid) -> AppResult<String> {
    let secret = random_token("isk_", 48);
    let mut tx = db.begin().await?;
    sqlx::query!(
        "update projects set identify_secret = $2 where id = $1",
        project_id,
        secret
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "delete from end_user_sessions s using end_users e
         where e.id = s.end_user_id and e.project_id = $1",
        project_id
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(secret)
}

/// Verifies the JWT against the project's secret and opens an end-user session: the same `sub`
/// is the same end user each time (their name and email follow the latest token that has them).
pub async fn identify(db: &PgPool, project_id: Uuid, jwt: &str) -> AppResult<(String, EndUser)> {
    let secret = sqlx::query_scalar!(
        "select identify_secret from projects where id = $1",
        project_id
    )
    .fetch_one(db)
    .await?
    .ok_or_else(|| {
        invalid("this project has no identify secret yet (rotate one in its settings)")
    })?;
    let mut validation = Validation::new(Algorithm::HS256);
    validation.set_required_spec_claims(&["exp", "sub"]);
    validation.leeway = 30;
    let claims = jsonwebtoken::decode::<Claims>(
        jwt,
        &DecodingKey::from_secret(secret.as_bytes()),
        &validation,
    )
    .map_err(|e| invalid(&format!("the identify token was refused: {e}")))?
    .claims;
    if claims.exp > (Utc::now() + Duration::hours(MAX_LIFETIME_HOURS)).timestamp() + 30 {
        return Err(invalid(
            "the identify token's exp is more than 24 hours ahead",
        ));
    }
    let sub = claims.sub.trim();
    if sub.is_empty() || sub.chars().count() > 256 {
        return Err(invalid(
            "the identify token's sub must be 1 to 256 characters",
        ));
    }
    let email = claims
        .email
        .map(|e| e.trim().to_lowercase())
        .filter(|e| is_email(e));
    let name = claims
        .name
        .map(|n| n.trim().chars().take(200).collect::<String>())
        .filter(|n| !n.is_empty());
    // A token that leaves out the name or the address keeps what an earlier one said.
    let user = sqlx::query!(
        "insert into end_users (id, project_id, sub, email, name)
         values ($1, $2, $3, $4, coalesce($5, 'Anonymous'))
         on conflict (project_id, sub) do update
            set email = coalesce($4, end_users.email), name = coalesce($5, end_users.name),
                updated_at = now()
         returning id, name, email",
        Uuid::now_v7(),
        project_id,
        sub,
        email,
        name
    )
    .fetch_one(db)
    .await?;
    let token = random_token(SESSION_PREFIX, 40);
    sqlx::query!(
        "insert into end_user_sessions (token_hash, end_user_id, expires_at) values ($1, $2, $3)",
        hash_token(&token),
        user.id,
        Utc::now() + Duration::days(SESSION_DAYS)
    )
    .execute(db)
    .await?;
    Ok((
        token,
        EndUser {
            id: user.id,
            project_id,
            name: user.name,
            email: user.email,
        },
    ))
}

/// The end user of a live `eu_` session, if any.
pub async fn session(db: &PgPool, token: &str) -> AppResult<Option<EndUser>> {
    let row = sqlx::query!(
        "select u.id, u.project_id, u.name, u.email from end_user_sessions s
         join end_users u on u.id = s.end_user_id
         where s.token_hash = $1 and s.expires_at > now()",
        hash_token(token)
    )
    .fetch_optional(db)
    .await?;
    Ok(row.map(|r| EndUser {
        id: r.id,
        project_id: r.project_id,
        name: r.name,
        email: r.email,
    }))
}
