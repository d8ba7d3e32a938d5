//! Feedback boards: a project's entries split by who may see them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::input::{FromInput, Input};
use crate::projects::slug;
use crate::BoardVisibility;

/// The slug of the board every project starts with.
pub const DEFAULT_SLUG: &str = "feedback";

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Board {
    pub id: Uuid,
    pub name: String,
    /// Unique in the project; the board's page is `/f/<project>/b/<slug>`.
    pub slug: String,
    pub visibility: BoardVisibility,
    /// `segment` boards: the attributes (`{"plan": "enterprise"}`) an end user's identify token must
    /// carry, every pair equal; `null` for the others.
    #[schema(value_type = Option<Object>)]
    #[cfg_attr(feature = "sqlx", sqlx(json(nullable)))]
    pub segment: Option<Map<String, Value>>,
    /// The project's first board (`feedback`): entries submitted without a board land here, and
    /// it cannot be deleted.
    #[serde(rename = "default")]
    #[cfg_attr(feature = "sqlx", sqlx(rename = "is_default"))]
    pub is_default: bool,
    pub created_at: DateTime<Utc>,
}

impl Board {
    /// Whether an end user with these identify-token attributes is in the board's segment.
    pub fn admits(&self, attributes: &Map<String, Value>) -> bool {
        let Some(segment) = &self.segment else {
            return false;
        };
        segment
            .iter()
            .all(|(k, want)| match (want, attributes.get(k)) {
                (Value::Number(a), Some(Value::Number(b))) => a.as_f64() == b.as_f64(),
                (want, Some(got)) => want == got,
                (_, None) => false,
            })
    }
}

/// A flat object of 1 to 10 attributes, each a string (up to 200 characters) or a number.
fn segment(input: &mut Input, field: &str) -> Option<Map<String, Value>> {
    if input.raw(field).is_some_and(Value::is_null) {
        return None;
    }
    let map = input.opt_object(field, 4096)?;
    let flat = map.iter().all(|(k, v)| {
        (1..=64).contains(&k.chars().count())
            && match v {
                Value::String(s) => s.chars().count() <= 200,
                Value::Number(_) => true,
                _ => false,
            }
    });
    if map.is_empty() || map.len() > 10 || !flat {
        input.error(
            field,
            "must be 1 to 10 attributes, each a string (up to 200 characters) or a number",
        );
        return None;
    }
    Some(map)
}

/// A segment goes with `visibility: segment` only.
fn segment_only_for_segments(input: &mut Input) -> Option<()> {
    let visibility = input.raw("visibility").and_then(Value::as_str);
    let has_segment = input.raw("segment").is_some_and(|v| !v.is_null());
    if has_segment && visibility.is_some_and(|v| v != "segment") {
        input.error("segment", "is only for boards with `visibility: segment`");
        return None;
    }
    Some(())
}

/// A new `segment` board names its segment.
fn new_segment_fits(input: &mut Input) -> Option<()> {
    segment_only_for_segments(input)?;
    let segment_board = input.raw("visibility").and_then(Value::as_str) == Some("segment");
    if segment_board && input.raw("segment").is_none_or(Value::is_null) {
        input.error(
            "segment",
            "is required for boards with `visibility: segment`",
        );
        return None;
    }
    Some(())
}

fn changed_slug(input: &mut Input, field: &str) -> Option<String> {
    input.present(field, |i| slug(i, field))
}

/// `POST /v1/projects/:id/boards`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
#[input(before = new_segment_fits)]
pub struct NewBoard {
    #[schema(min_length = 1, max_length = 80)]
    pub name: String,
    /// 3 to 48 of `a-z 0-9 -`, unique in the project.
    #[input(with = slug)]
    pub slug: String,
    /// `public` when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<BoardVisibility>,
    /// Required for `segment` boards: `{"attribute": value}`, 1 to 10 pairs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    #[input(with = segment)]
    pub segment: Option<Map<String, Value>>,
}

/// `PATCH /v1/projects/:id/boards/:board_id`: any of the fields (a board turned `segment` needs a
/// segment, sent or kept; one turned `public` or `private` drops it).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, FromInput)]
#[input(before = segment_only_for_segments)]
pub struct BoardChanges {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 80)]
    #[input(present)]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[input(with = changed_slug)]
    pub slug: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visibility: Option<BoardVisibility>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    #[input(with = segment)]
    pub segment: Option<Map<String, Value>>,
}
