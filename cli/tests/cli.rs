//! End-to-end tests of the `shipmate` binary: each starts the real api (with a fake identity
//! provider) on a free port against a fresh database, signs the CLI in through the browser flow,
//! and runs the binary as a user or a script would.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

#[path = "../../api/tests/api/helpers.rs"]
mod helpers;

#[path = "../../worker/tests/pipeline/fake_chat.rs"]
mod fake_chat;
#[path = "../../api/tests/api/fake_idp.rs"]
mod fake_idp;
mod support;

mod auth;
mod changelog;
mod feedback_loop;
mod index_names;
mod integrations;
mod knowledge_base;
mod members;
mod moderation;
mod projects;
mod stats;
mod webhooks;
