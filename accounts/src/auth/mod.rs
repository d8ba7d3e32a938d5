//! Users, sessions, passwords and sign-in with identity providers.

pub mod access_tokens;
pub mod accounts;
pub mod admin;
pub mod housekeeping;
pub mod identity;
pub mod oauth;
pub mod passwords;
pub mod policy;
pub mod resets;
pub mod sessions;
pub mod users;
pub mod verification;

pub use sessions::SESSION_DAYS;
pub use users::User;

pub use shipmate_types::Registration;
