//! Domain rules and storage shared by `shipmate-api` and `shipmate-worker`.
//!
//! Each area has its own module (`feedback`, `testimonials`, ...) holding its types and repository
//! functions; every repository function takes the tenant (`project_id`) and uses it in its `where`.

pub mod api_keys;
pub mod auth;
pub mod changelog;
pub mod config;
pub mod feedback;
pub mod projects;
pub mod teams;
pub mod testimonials;
