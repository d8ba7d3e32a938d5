//! Project members and invites.

use crate::input::FromInput;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::Role;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Member {
    pub user_id: Uuid,
    pub email: String,
    pub name: String,
    pub role: Role,
    pub created_at: DateTime<Utc>,
}

/// `PATCH /v1/projects/:id/members/:user_id`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct RoleChange {
    pub role: Role,
}

/// `POST /v1/projects/:id/invites`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewInvite {
    #[schema(format = "email")]
    pub email: String,
    pub role: Role,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Invite {
    pub id: Uuid,
    pub email: String,
    pub role: Role,
    /// Only in the creation answer: the link itself is not kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub expires_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
}

/// What an invite link offers, shown before it is accepted.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct InvitePreview {
    pub email: String,
    pub role: Role,
    pub project: InviteProject,
    pub expires_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct InviteProject {
    pub id: Uuid,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct InviteAccepted {
    pub project_id: Uuid,
    pub role: Role,
}
