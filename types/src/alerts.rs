//! Analytics alerts: a traffic spike or drop, or a goal's conversions, over the last hour.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::input::{FromInput, Input};
use crate::AlertKind;

/// `POST /v1/analytics/alerts`: `goal_id` with `kind: "goal"`, and only then.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
#[input(before = goal_for_goal_alerts)]
pub struct NewAlert {
    pub project_id: uuid::Uuid,
    pub kind: AlertKind,
    /// Visitors (spike: above it; drop: below it) or conversions (goal: above it) in the last hour.
    #[schema(minimum = 0, maximum = 1000000000)]
    pub threshold: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_id: Option<uuid::Uuid>,
}

fn goal_for_goal_alerts(input: &mut Input) -> Option<()> {
    let goal = input.raw("kind").and_then(Value::as_str) == Some("goal");
    match (goal, input.raw("goal_id").is_some()) {
        (true, false) => input.error("goal_id", "is required for a goal alert"),
        (false, true) => input.error("goal_id", "is only for kind goal"),
        _ => {}
    }
    Some(())
}

/// An alert, with its last check: `firing` until its condition clears (it fires once per episode).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Alert {
    pub id: uuid::Uuid,
    pub project_id: uuid::Uuid,
    pub kind: AlertKind,
    pub threshold: i64,
    pub goal_id: Option<uuid::Uuid>,
    pub firing: bool,
    /// The figure of the last check; `null` before the first.
    pub value: Option<i64>,
    pub fired_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AlertList {
    pub data: Vec<Alert>,
}

/// The `analytics.alert` webhook event's data.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AlertFired {
    pub alert_id: uuid::Uuid,
    pub kind: AlertKind,
    pub threshold: i64,
    pub value: i64,
}
