//! Who may hold an account: the form addresses are kept in, and the refusal when registration is
//! closed (shared by sign-up, provider sign-in and invites).

use shipmate_core::AppError;

/// Emails are compared and stored lowercased, so `Ann@X.org` and `ann@x.org` are one account.
pub fn normalize_email(email: &str) -> String {
    email.trim().to_lowercase()
}

pub fn registration_closed() -> AppError {
    AppError::client(
        shipmate_core::error::Refusal::Forbidden,
        "registration_closed",
        "registration is closed on this instance; ask for an invite",
    )
}
