//! Tags on feedback entries: a project's labels for triage, each with a colour.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::input::{FromInput, Input};

/// A tag as entries carry it, and as the project's list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Tag {
    pub id: Uuid,
    pub name: String,
    /// `#rrggbb`.
    pub color: String,
}

/// The colour of a tag made without one (a neutral grey).
pub const DEFAULT_COLOR: &str = "#6b7280";

/// `#rrggbb`, stored lowercase.
fn color(input: &mut Input, field: &str) -> Option<String> {
    let c = input.opt_string(field, 7)?;
    let hex = c.strip_prefix('#').unwrap_or_default();
    if hex.len() == 6 && hex.chars().all(|ch| ch.is_ascii_hexdigit()) {
        Some(c.to_ascii_lowercase())
    } else {
        input.error(field, "must be a colour as #rrggbb");
        None
    }
}

/// `POST /v1/projects/:id/tags`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewTag {
    /// 1 to 40 characters, unique in the project (whatever the case).
    #[schema(min_length = 1, max_length = 40)]
    pub name: String,
    /// `#rrggbb`; grey (`#6b7280`) when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(pattern = "^#[0-9a-fA-F]{6}$")]
    #[input(with = color)]
    pub color: Option<String>,
}
