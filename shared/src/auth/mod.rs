//! Users, sessions and sign-in with identity providers.

pub mod oauth;
pub mod sessions;
pub mod users;

pub use sessions::SESSION_DAYS;
pub use users::User;
