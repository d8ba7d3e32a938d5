//! Scoped API keys: least privilege beyond the spec. The project's own `pk_` key sits in a script
//! tag yet may delete documents; an owner can add keys limited to some scopes (say, analytics only
//! for the script tag, or search only) and to some browser origins, and revoke them at any time.

use shipmate_core::error::Refusal;
use sqlx::PgPool;
use uuid::Uuid;

use crate::projects::Project;
use shipmate_core::tokens::{hash_token, new_api_key};
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::projects::{ApiKey, NewApiKey};

pub use shipmate_types::{Scope, StringEnum};

/// What an API-key route asks of a key; the api's route table says which (`api/src/key_routes.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRoute {
    /// Any key of the project.
    AnyKey,
    /// A key holding this scope.
    Needs(Scope),
    /// A route no scoped key may call (fail closed).
    Unlisted,
}

/// What a presented key may do: everything (the project's secret key), the public scopes (its
/// publishable key), or a scoped key's limits.
#[derive(Debug, Clone)]
pub enum Access {
    Full,
    Publishable,
    Scoped {
        scopes: Vec<Scope>,
        allowed_origins: Vec<String>,
    },
}

impl Access {
    /// Refuses a key outside its scopes (403 `insufficient_scope`) or, for a scoped key that names
    /// origins, a request from any other origin (403 `origin_not_allowed`; a request without an
    /// `Origin` header counts as another origin: such a key is meant for browsers).
    /// `call` names the request in the refusal (`POST /v1/indexes/{index_id}`).
    pub fn check(&self, route: KeyRoute, call: &str, origin: Option<&str>) -> AppResult<()> {
        if route == KeyRoute::AnyKey {
            return Ok(());
        }
        let (held, allowed_origins): (&dyn Fn(Scope) -> bool, &[String]) = match self {
            Access::Full => return Ok(()),
            Access::Publishable => (&Scope::is_public, &[]),
            Access::Scoped {
                scopes,
                allowed_origins,
            } => (&|s| scopes.contains(&s), allowed_origins),
        };
        match route {
            KeyRoute::Needs(needed) if held(needed) => {}
            route => {
                return Err(AppError::client(
                    Refusal::Forbidden,
                    "insufficient_scope",
                    format!(
                        "this API key may not call {call}{}",
                        match route {
                            KeyRoute::Needs(s) => format!(" (it needs the {s} scope)"),
                            _ => String::new(),
                        }
                    ),
                ))
            }
        }
        if !allowed_origins.is_empty()
            && !origin.is_some_and(|o| allowed_origins.iter().any(|a| a == o))
        {
            return Err(AppError::client(
                Refusal::Forbidden,
                "origin_not_allowed",
                "this API key only works from its allowed origins",
            ));
        }
        Ok(())
    }

    /// Keys the public holds (in a web page), whose requests the per-client limits apply to.
    pub fn is_public(&self) -> bool {
        !matches!(self, Access::Full)
    }
}

#[derive(sqlx::FromRow)]
struct KeyRow {
    #[sqlx(flatten)]
    project: Project,
    publishable: bool,
    scopes: Option<Vec<String>>,
    allowed_origins: Option<Vec<String>>,
}

/// The project a key belongs to and what the key may do there; `None` for an unknown or revoked key.
pub async fn resolve(db: &PgPool, key: &str) -> AppResult<Option<(Project, Access)>> {
    if !key.starts_with("pk_") {
        return Ok(None);
    }
    // runtime-checked: a union read into a flattened `Project`, which query_as! cannot build
    let row: Option<KeyRow> = sqlx::query_as(
        "select id, name, slug, api_key, publishable_key, feedback_moderation, created_at, publishable_key = $1 as publishable,
                null::text[] as scopes, null::text[] as allowed_origins
         from projects where api_key = $1 or publishable_key = $1
         union all
         select p.id, p.name, p.slug, p.api_key, p.publishable_key, p.feedback_moderation, p.created_at, false, k.scopes, k.allowed_origins
         from api_keys k join projects p on p.id = k.project_id where k.key_hash = $2
         limit 1",
    )
    .bind(key)
    .bind(hash_token(key))
    .fetch_optional(db)
    .await?;
    Ok(row.map(|r| {
        let access = match (r.publishable, r.scopes) {
            (true, _) => Access::Publishable,
            (false, None) => Access::Full,
            (false, Some(scopes)) => Access::Scoped {
                // The column's check constraint keeps every entry one of ours.
                scopes: scopes.iter().filter_map(|s| Scope::parse(s)).collect(),
                allowed_origins: r.allowed_origins.unwrap_or_default(),
            },
        };
        (r.project, access)
    }))
}

const COLUMNS: &str = "id, project_id, name, key_prefix, scopes, allowed_origins, created_at";

pub async fn create(
    db: &PgPool,
    project_id: Uuid,
    name: &str,
    scopes: &[Scope],
    allowed_origins: &[String],
) -> AppResult<ApiKey> {
    let key = new_api_key();
    let mut created = sqlx::query_as::<_, ApiKey>(&format!(
        "insert into api_keys (id, project_id, name, key_hash, key_prefix, scopes, allowed_origins)
         values ($1, $2, $3, $4, $5, $6, $7) returning {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(project_id)
    .bind(name)
    .bind(hash_token(&key))
    .bind(&key[..10])
    .bind(scopes.iter().map(|s| s.as_str()).collect::<Vec<_>>())
    .bind(allowed_origins)
    .fetch_one(db)
    .await?;
    created.key = Some(key);
    Ok(created)
}

pub async fn list(db: &PgPool, project_id: Uuid) -> AppResult<Vec<ApiKey>> {
    Ok(sqlx::query_as::<_, ApiKey>(&format!(
        "select {COLUMNS} from api_keys where project_id = $1 order by created_at"
    ))
    .bind(project_id)
    .fetch_all(db)
    .await?)
}

/// Revokes a key: it answers 401 from the next request on.
pub async fn revoke(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<()> {
    let gone = sqlx::query!(
        "delete from api_keys where id = $1 and project_id = $2",
        id,
        project_id
    )
    .execute(db)
    .await?
    .rows_affected();
    if gone == 0 {
        return Err(AppError::not_found("API key"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scoped(scopes: &[&str], origins: &[&str]) -> Access {
        Access::Scoped {
            scopes: scopes.iter().filter_map(|s| Scope::parse(s)).collect(),
            allowed_origins: origins.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn scoped_keys_reach_only_their_scopes_and_origins() {
        let events = KeyRoute::Needs(Scope::AnalyticsWrite);
        let analytics = scoped(&["analytics:write"], &["https://example.com"]);
        assert!(analytics
            .check(events, "POST /e", Some("https://example.com"))
            .is_ok());
        assert!(analytics
            .check(events, "POST /e", Some("https://evil.test"))
            .is_err());
        assert!(analytics.check(events, "POST /e", None).is_err());
        assert!(analytics
            .check(KeyRoute::AnyKey, "GET /p", Some("https://evil.test"))
            .is_ok());
        let search = scoped(&["kb:read"], &[]);
        assert!(search
            .check(KeyRoute::Needs(Scope::KbRead), "POST /s", None)
            .is_ok());
        assert!(search
            .check(KeyRoute::Needs(Scope::KbWrite), "POST /d", None)
            .is_err());
        assert!(search.check(KeyRoute::Unlisted, "GET /u", None).is_err());
        assert!(Access::Full
            .check(KeyRoute::Unlisted, "GET /u", None)
            .is_ok());
    }
}
