//! Accounts: who may do what. Users, passwords, sessions, OAuth and end-user identity (`auth`),
//! teams with roles and invites (`teams`), projects (`projects`) and their API keys with scopes
//! and allowed origins (`api_keys`). Every function takes the tenant it acts for.

pub mod api_keys;
pub mod auth;
pub mod projects;
pub mod teams;
