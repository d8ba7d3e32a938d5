//! Projects and their API keys.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::{Role, Scope};

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
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct NewProject {
    #[schema(min_length = 1, max_length = 100)]
    pub name: String,
    /// 3 to 48 of a-z, 0-9 and `-`, starting and ending with a letter or digit.
    #[schema(
        min_length = 3,
        max_length = 48,
        pattern = "^[a-z0-9][a-z0-9-]*[a-z0-9]$"
    )]
    pub slug: String,
}

/// `PATCH /v1/projects/:id` (admins): any of the fields.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct ProjectChanges {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 100)]
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
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct NewApiKey {
    #[schema(min_length = 1, max_length = 100)]
    pub name: String,
    pub scopes: Vec<Scope>,
    /// Browser origins (`https://example.com`) the key may be used from; any when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_origins: Vec<String>,
}
