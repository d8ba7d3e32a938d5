//! Accounts, sign-in, sessions and the instance's administration.

use crate::input::{FromInput, Input};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::Registration;

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
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Setup {
    pub token: String,
    #[schema(format = "email")]
    pub email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub name: Option<String>,
    /// 10 to 256 characters.
    #[schema(min_length = 10, max_length = 256)]
    pub password: String,
}

impl FromInput for Setup {
    fn read(input: &mut Input) -> Option<Self> {
        let token = input.string("token", 1, 200);
        let email = input.email("email");
        let name = input.opt_string("name", 200);
        let password = input.password("password", MIN_PASSWORD);
        Some(Setup {
            token: token?,
            email: email?,
            name,
            password: password?,
        })
    }
}

/// `POST /v1/auth/register`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct NewAccount {
    #[schema(format = "email")]
    pub email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 200)]
    pub name: Option<String>,
    #[schema(min_length = 10, max_length = 256)]
    pub password: String,
    /// The invite token, where registration needs one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invite: Option<String>,
}

impl FromInput for NewAccount {
    fn read(input: &mut Input) -> Option<Self> {
        let email = input.email("email");
        let name = input.opt_string("name", 200);
        let password = input.password("password", MIN_PASSWORD);
        let invite = input.opt_string("invite", 200);
        Some(NewAccount {
            email: email?,
            name,
            password: password?,
            invite,
        })
    }
}

/// `POST /v1/auth/login`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Login {
    pub email: String,
    pub password: String,
    /// The CLI's loopback URL to hand the session to (`http://127.0.0.1:<port>/...`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cli_callback: Option<String>,
    /// Echoed to `cli_callback`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}

/// A sign-in takes whatever address and password were typed: a wrong one is a 401, not a 422.
impl FromInput for Login {
    fn read(input: &mut Input) -> Option<Self> {
        let email = input.string("email", 1, 254);
        let password = input.password("password", 1);
        let cli_callback = input.opt_string("cli_callback", 2048);
        let state = input.opt_string("state", 200);
        Some(Login {
            email: email?,
            password: password?,
            cli_callback,
            state,
        })
    }
}

/// `POST /v1/auth/dev-login` (development instances only).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct DevLogin {
    #[schema(format = "email")]
    pub email: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl FromInput for DevLogin {
    fn read(input: &mut Input) -> Option<Self> {
        let email = input.email("email");
        let name = input.opt_string("name", 200);
        Some(DevLogin {
            email: email?,
            name,
        })
    }
}

/// `POST /v1/auth/password`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PasswordChange {
    /// Required when the account has a password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_password: Option<String>,
    #[schema(min_length = 10, max_length = 256)]
    pub password: String,
}

impl FromInput for PasswordChange {
    fn read(input: &mut Input) -> Option<Self> {
        let current_password = input
            .raw("current_password")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned);
        Some(PasswordChange {
            current_password,
            password: input.password("password", MIN_PASSWORD)?,
        })
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PasswordChanged {
    pub changed: bool,
}

/// An address, for a password reset or a subscription.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct EmailAddress {
    #[schema(format = "email")]
    pub email: String,
}

impl FromInput for EmailAddress {
    fn read(input: &mut Input) -> Option<Self> {
        Some(EmailAddress {
            email: input.email("email")?,
        })
    }
}

/// `POST /v1/auth/password-reset/confirm`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct PasswordReset {
    pub token: String,
    #[schema(min_length = 10, max_length = 256)]
    pub password: String,
}

impl FromInput for PasswordReset {
    fn read(input: &mut Input) -> Option<Self> {
        let token = input.string("token", 1, 200);
        let password = input.password("password", MIN_PASSWORD);
        Some(PasswordReset {
            token: token?,
            password: password?,
        })
    }
}

/// `POST /v1/auth/verify-email`: the token of the verification link.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct VerifyEmail {
    pub token: String,
}

impl FromInput for VerifyEmail {
    fn read(input: &mut Input) -> Option<Self> {
        Some(VerifyEmail {
            token: input.string("token", 1, 200)?,
        })
    }
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
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct NewAccessToken {
    /// What the token is for, 1 to 100 characters.
    #[schema(min_length = 1, max_length = 100)]
    pub name: String,
    /// 1 to 365; 90 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 365)]
    pub expires_in_days: Option<i64>,
}

impl FromInput for NewAccessToken {
    fn read(input: &mut Input) -> Option<Self> {
        let name = input.string("name", 1, 100);
        let expires_in_days = input.opt_int("expires_in_days", 1, 365);
        Some(NewAccessToken {
            name: name?,
            expires_in_days,
        })
    }
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
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
pub struct AccountChanges {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_admin: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disabled: Option<bool>,
}

impl FromInput for AccountChanges {
    fn read(input: &mut Input) -> Option<Self> {
        Some(AccountChanges {
            is_admin: input.opt_bool("is_admin"),
            disabled: input.opt_bool("disabled"),
        })
    }
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
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct IdentifyRequest {
    pub token: String,
}

impl FromInput for IdentifyRequest {
    fn read(input: &mut Input) -> Option<Self> {
        Some(IdentifyRequest {
            token: input.string("token", 1, 8_192)?,
        })
    }
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
