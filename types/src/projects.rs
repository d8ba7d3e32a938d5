//! Projects and their API keys.

use crate::input::{FromInput, Input};
use crate::StringEnum;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::{Role, Scope};

fn scopes(input: &mut Input, field: &str) -> Option<Vec<Scope>> {
    let names = input.string_list(
        field,
        true,
        |s| Scope::parse(s).is_some(),
        &format!("must each be one of {}", Scope::NAMES.join(", ")),
    );
    Some(names.iter().filter_map(|s| Scope::parse(s)).collect())
}

fn origins(input: &mut Input, field: &str) -> Option<Vec<String>> {
    Some(input.string_list(
        field,
        false,
        is_origin,
        "must each be an origin such as https://example.com (scheme, host and port only)",
    ))
}

pub(crate) fn slug(input: &mut Input, field: &str) -> Option<String> {
    let slug = input.string(field, 1, 48)?;
    if !is_valid_slug(&slug) {
        input.error(
            field,
            "must be 3 to 48 of a-z, 0-9 and -, starting and ending with a letter or digit",
        );
        return None;
    }
    Some(slug)
}

/// A slug: 3 to 48 of `a-z 0-9 -`, starting and ending with a letter or digit.
pub fn is_valid_slug(s: &str) -> bool {
    let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    (3..=48).contains(&s.len())
        && s.chars().all(|c| ok_char(c) || c == '-')
        && s.starts_with(ok_char)
        && s.ends_with(ok_char)
}

/// Is `s` a browser origin: `http(s)://host[:port]`, nothing after it?
pub fn is_origin(s: &str) -> bool {
    url::Url::parse(s).is_ok_and(|u| {
        matches!(u.scheme(), "http" | "https")
            && u.host_str().is_some()
            && u.origin().ascii_serialization() == s
    })
}

/// A project as its member sees it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ProjectView {
    pub id: Uuid,
    pub name: String,
    pub slug: String,
    /// The secret key, for the customer's own server: owners and admins only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// The key for browser code and snippets (the public scopes only).
    pub publishable_key: String,
    /// Board submissions wait for a member's approval (`moderation: pending`).
    pub feedback_moderation: bool,
    pub role: Role,
    pub created_at: DateTime<Utc>,
}

/// `POST /v1/projects`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewProject {
    #[schema(min_length = 1, max_length = 100)]
    pub name: String,
    /// 3 to 48 of a-z, 0-9 and `-`, starting and ending with a letter or digit.
    #[schema(
        min_length = 3,
        max_length = 48,
        pattern = "^[a-z0-9][a-z0-9-]*[a-z0-9]$"
    )]
    #[input(with = slug)]
    pub slug: String,
}

/// `PATCH /v1/projects/:id` (admins): any of the fields.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, FromInput)]
pub struct ProjectChanges {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 100)]
    #[input(present)]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback_moderation: Option<bool>,
}

/// `GET /v1/project`: the project of the key sent.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct KeyProject {
    pub id: Uuid,
    pub name: String,
    pub slug: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct ApiKey {
    pub id: Uuid,
    pub project_id: Uuid,
    pub name: String,
    /// The key's first characters, to tell keys apart.
    pub key_prefix: String,
    pub scopes: Vec<Scope>,
    pub allowed_origins: Vec<String>,
    pub created_at: DateTime<Utc>,
    /// The key itself: only in the creation answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "sqlx", sqlx(skip))]
    pub key: Option<String>,
}

/// `POST /v1/projects/:id/api-keys`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewApiKey {
    #[schema(min_length = 1, max_length = 100)]
    pub name: String,
    #[input(with = scopes)]
    pub scopes: Vec<Scope>,
    /// Browser origins (`https://example.com`) the key may be used from; any when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[input(with = origins)]
    pub allowed_origins: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::{is_origin, is_valid_slug};

    #[test]
    fn slugs() {
        for ok in ["abc", "my-app-2", "a1b"] {
            assert!(is_valid_slug(ok), "{ok}");
        }
        for bad in ["ab", "-abc", "abc-", "ABC", "a_b", "a b c", &"a".repeat(49)] {
            assert!(!is_valid_slug(bad), "{bad}");
        }
    }

    #[test]
    fn origins_are_scheme_host_and_port_only() {
        assert!(is_origin("https://example.com"));
        assert!(is_origin("http://127.0.0.1:3000"));
        assert!(!is_origin("https://example.com/"));
        assert!(!is_origin("https://example.com/app"));
        assert!(!is_origin("ftp://example.com"));
        assert!(!is_origin("example.com"));
    }
}
