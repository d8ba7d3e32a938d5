//! Accounts, sign-in, sessions and the instance's administration.

use crate::input::{FromInput, Input};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::Registration;

/// A field taken exactly as typed (a password to check, not to set).
fn as_typed(input: &mut Input, field: &str) -> Option<String> {
    input
        .raw(field)
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
}

/// New passwords: 10 to 256 characters, taken as typed.
pub const MIN_PASSWORD: usize = 10;

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct User {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    /// An instance admin: manages users and sees the instance's settings.
    pub is_admin: bool,
    /// The address is confirmed: made through setup, an invite or a provider that vouches for it,
    /// or by the link of the verification email. Only verified accounts are linked to providers.
    pub email_verified: bool,
}

/// A session token and its user: the answer of every sign-in.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SignedIn {
    pub token: String,
    pub user: User,
    /// With `cli_callback`: the loopback URL (with `token` and `state`) to hand the session to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect: Option<String>,
}

/// `POST /v1/auth/setup`: the first account, with the setup token from the server's log.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct Setup {
    #[schema(min_length = 1, max_length = 200)]
    pub token: String,
    #[schema(format = "email")]
    pub email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub name: Option<String>,
    /// 10 to 256 characters.
    #[schema(min_length = 10, max_length = 256)]
    #[input(password = MIN_PASSWORD)]
    pub password: String,
}

/// `POST /v1/auth/register`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewAccount {
    #[schema(format = "email")]
    pub email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub name: Option<String>,
    #[schema(min_length = 10, max_length = 256)]
    #[input(password = MIN_PASSWORD)]
    pub password: String,
    /// The invite token, where registration needs one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub invite: Option<String>,
}

// A sign-in takes whatever address and password were typed: a wrong one is a 401, not a 422.
/// `POST /v1/auth/login`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct Login {
    #[schema(min_length = 1, max_length = 254)]
    pub email: String,
    #[input(password = 1)]
    pub password: String,
    /// The CLI's loopback URL to hand the session to (`http://127.0.0.1:<port>/...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 2048)]
    pub cli_callback: Option<String>,
    /// Echoed to `cli_callback`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub state: Option<String>,
}

/// `POST /v1/auth/dev-login` (development instances only).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct DevLogin {
    #[schema(format = "email")]
    pub email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub name: Option<String>,
}

/// `POST /v1/auth/password`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct PasswordChange {
    /// Required when the account has a password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[input(with = as_typed)]
    pub current_password: Option<String>,
    #[schema(min_length = 10, max_length = 256)]
    #[input(password = MIN_PASSWORD)]
    pub password: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PasswordChanged {
    pub changed: bool,
}

/// An address, for a password reset or a subscription.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct EmailAddress {
    #[schema(format = "email")]
    pub email: String,
}

/// `POST /v1/auth/password-reset/confirm`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct PasswordReset {
    #[schema(min_length = 1, max_length = 200)]
    pub token: String,
    #[schema(min_length = 10, max_length = 256)]
    #[input(password = MIN_PASSWORD)]
    pub password: String,
}

/// `POST /v1/auth/verify-email`: the token of the verification link.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct VerifyEmail {
    #[schema(min_length = 1, max_length = 200)]
    pub token: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct LoggedOut {
    pub logged_out: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SessionInfo {
    pub id: Uuid,
    pub created_at: DateTime<Utc>,
    pub last_used_at: DateTime<Utc>,
    /// The session making this request.
    pub current: bool,
}

/// `POST /v1/auth/tokens`: a personal access token for scripts and the CLI.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewAccessToken {
    /// What the token is for, 1 to 100 characters.
    #[schema(min_length = 1, max_length = 100)]
    pub name: String,
    /// 1 to 365; 90 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 365)]
    pub expires_in_days: Option<i64>,
}

/// A personal access token as listed: never the token itself.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AccessToken {
    pub id: Uuid,
    pub name: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub last_used_at: DateTime<Utc>,
}

/// A new personal access token: `token` (`st_...`) is shown this once.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct AccessTokenCreated {
    pub id: Uuid,
    pub name: String,
    pub token: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ProviderInfo {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct ProviderList {
    /// Email and password first, then every configured identity provider.
    pub data: Vec<ProviderInfo>,
    /// Who may create an account here.
    pub registration: Registration,
    /// True until the first account exists (made through the setup link on the server's log).
    pub setup_required: bool,
}

/// An account as the instance's admins see it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Account {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    pub is_admin: bool,
    pub disabled: bool,
    pub created_at: DateTime<Utc>,
}

/// `PATCH /v1/admin/users/:id`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, FromInput)]
pub struct AccountChanges {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_admin: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct InstanceSettings {
    pub registration: Registration,
    /// Whether the instance can send email at all.
    pub email_configured: bool,
    pub providers: Vec<ProviderInfo>,
}

/// `POST /v1/auth/identify`: a JWT signed (HS256) by the customer's backend with the project's
/// identify secret; claims `sub`, `name`, `email`, `exp` (at most 24 hours ahead).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct IdentifyRequest {
    #[schema(min_length = 1, max_length = 8192)]
    pub token: String,
}

/// An end user of a customer's product, as the board shows them.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct EndUserInfo {
    pub id: Uuid,
    pub name: String,
}

/// An end-user session (`eu_...`), valid 30 days, for voting, commenting and submitting feedback
/// in that project only.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Identified {
    pub token: String,
    pub user: EndUserInfo,
}

/// A project's new identify secret: shown once, at its rotation.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct IdentifySecret {
    pub identify_secret: String,
}
