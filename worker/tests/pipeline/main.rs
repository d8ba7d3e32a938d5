//! The knowledge base end to end: the api and real workers against real Postgres and Redis.

#[path = "../../../api/tests/api/helpers.rs"]
mod helpers;

mod fakes;
mod kb_api;
mod providers;
mod resilience;
mod support;
