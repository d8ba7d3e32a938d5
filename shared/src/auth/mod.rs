//! Users, sessions, passwords and sign-in with identity providers.

pub mod accounts;
pub mod admin;
pub mod housekeeping;
pub mod oauth;
pub mod passwords;
pub mod resets;
pub mod sessions;
pub mod users;

pub use sessions::SESSION_DAYS;
pub use users::User;

/// Who may create an account (`SHIPMATE_REGISTRATION`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, serde::Serialize, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Registration {
    /// Only with a live invite for that same email.
    #[default]
    Invite,
    /// Anyone.
    Open,
    /// Nobody; the setup link still makes the first account.
    Closed,
}
