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
    /// The flat attributes of the latest identify token (segment boards match them).
    pub attributes: serde_json::Map<String, serde_json::Value>,
}

#[derive(Deserialize)]
struct Claims {
    sub: String,
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    name: Option<String>,
    exp: i64,
    #[serde(default)]
    company: Option<CompanyClaim>,
    #[serde(default)]
    attributes: Option<serde_json::Map<String, serde_json::Value>>,
}

/// `company` in the token: `id` (a string or a number) and `name`, `mrr` and `plan` if known.
#[derive(Deserialize)]
struct CompanyClaim {
    id: serde_json::Value,
    name: String,
    #[serde(default)]
    mrr: Option<f64>,
    #[serde(default)]
    plan: Option<String>,
}

/// Attributes segment boards match on: flat strings and numbers (anything else is left out),
/// at most 50, each string at most 200 characters.
fn flat_attributes(attrs: serde_json::Map<String, serde_json::Value>) -> serde_json::Value {
    use serde_json::Value;
    let kept = attrs
        .into_iter()
        .filter(|(k, _)| !k.is_empty() && k.chars().count() <= 100)
        .filter_map(|(k, v)| match v {
            Value::String(s) => Some((k, Value::String(s.chars().take(200).collect()))),
            Value::Number(_) => Some((k, v)),
            _ => None,
        })
        .take(50);
    Value::Object(kept.collect())
}

/// The company's row for the project, made or updated from the claim; answers its id and whether
/// its MRR changed (the value behind its votes then changes too).
async fn upsert_company(
    db: &PgPool,
    project_id: Uuid,
    claim: CompanyClaim,
) -> AppResult<(Uuid, bool)> {
    let external = match claim.id {
        serde_json::Value::String(s) => s.trim().to_owned(),
        serde_json::Value::Number(n) => n.to_string(),
        _ => String::new(),
    };
    let name = claim.name.trim().chars().take(200).collect::<String>();
    if external.is_empty() || external.chars().count() > 256 || name.is_empty() {
        return Err(invalid(
            "the identify token's company needs an id (1 to 256 characters) and a name",
        ));
    }
    if claim.mrr.is_some_and(|m| !m.is_finite() || m < 0.0) {
        return Err(invalid(
            "the identify token's company mrr must be a number of 0 or more",
        ));
    }
    let plan = claim
        .plan
        .map(|p| p.trim().chars().take(100).collect::<String>())
        .filter(|p| !p.is_empty());
    // `old` is the row before this statement: its MRR tells whether the value changed.
    let row = sqlx::query!(
        r#"with old as (select mrr from companies where project_id = $2 and external_id = $3)
           insert into companies (id, project_id, external_id, name, mrr, plan)
           values ($1, $2, $3, $4, $5, $6)
           on conflict (project_id, external_id) do update
              set name = excluded.name, mrr = coalesce(excluded.mrr, companies.mrr),
                  plan = coalesce(excluded.plan, companies.plan), updated_at = now()
           returning id, mrr, (select mrr from old) as old_mrr, exists (select 1 from old) as "existed!""#,
        Uuid::now_v7(),
        project_id,
        external,
        name,
        claim.mrr,
        plan
    )
    .fetch_one(db)
    .await?;
    Ok((row.id, row.existed && row.mrr != row.old_mrr))
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
/// is the same end user each time (their name, email, company and attributes follow the latest
/// token that has them). The flag says whether the value behind the user's votes changed (another
/// company, or their company's MRR): the caller then refreshes the entries they voted on.
pub async fn identify(
    db: &PgPool,
    project_id: Uuid,
    jwt: &str,
) -> AppResult<(String, EndUser, Option<ValueChange>)> {
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
    let company = match claims.company {
        Some(c) => Some(upsert_company(db, project_id, c).await?),
        None => None,
    };
    let attributes = claims.attributes.map(flat_attributes);
    // A token that leaves out the name, the address, the company or the attributes keeps what an
    // earlier one said.
    let user = sqlx::query!(
        r#"with old as (select company_id from end_users where project_id = $2 and sub = $3)
           insert into end_users (id, project_id, sub, email, name, company_id, attributes)
           values ($1, $2, $3, $4, coalesce($5, 'Anonymous'), $6, coalesce($7::jsonb, '{}'::jsonb))
           on conflict (project_id, sub) do update
              set email = coalesce($4, end_users.email), name = coalesce($5, end_users.name),
                  company_id = coalesce($6, end_users.company_id),
                  attributes = coalesce($7, end_users.attributes), updated_at = now()
           returning id, name, email, company_id, attributes,
               (select company_id from old) is distinct from company_id as "moved!""#,
        Uuid::now_v7(),
        project_id,
        sub,
        email,
        name,
        company.map(|c| c.0),
        attributes
    )
    .fetch_one(db)
    .await?;
    let change = (user.moved || company.is_some_and(|c| c.1)).then_some(ValueChange {
        end_user_id: user.id,
        company_id: user.company_id,
    });
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
            attributes: object(user.attributes),
        },
        change,
    ))
}

fn object(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    match v {
        serde_json::Value::Object(m) => m,
        _ => serde_json::Map::new(),
    }
}

/// Who to refresh the customer value of after an identify (see `identify`).
#[derive(Debug, Clone, Copy)]
pub struct ValueChange {
    pub end_user_id: Uuid,
    pub company_id: Option<Uuid>,
}

/// The end user of a live `eu_` session, if any.
pub async fn session(db: &PgPool, token: &str) -> AppResult<Option<EndUser>> {
    let row = sqlx::query!(
        "select u.id, u.project_id, u.name, u.email, u.attributes from end_user_sessions s
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
        attributes: object(r.attributes),
    }))
}
