//! Email notifications, changelog subscriptions and suppressions.

use crate::input::FromInput;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A member's email notifications for one project.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Notifications {
    pub new_feedback: bool,
    pub new_testimonial: bool,
    /// The weekly analytics report (off until turned on).
    pub weekly_report: bool,
    /// Analytics alerts going off (off until turned on).
    pub analytics_alerts: bool,
    /// Whether the instance can send email at all.
    pub email_configured: bool,
}

/// `PUT`/`PATCH .../notifications`: any of the switches.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NotificationChanges {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_feedback: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_testimonial: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weekly_report: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analytics_alerts: Option<bool>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SubscriberCounts {
    pub confirmed: i64,
    pub pending: i64,
}

/// An address no email goes to any more (a hard bounce, or an unsubscribe from everything).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Suppression {
    pub email: String,
    pub reason: String,
    pub created_at: DateTime<Utc>,
}

/// A lifted suppression: `id` is the address.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SuppressionLifted {
    pub id: String,
    pub deleted: bool,
}
