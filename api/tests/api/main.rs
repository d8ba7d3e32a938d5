//! HTTP tests: each starts the real app on a free port against its own fresh database.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

mod accounts;
mod auth;
mod authz;
mod authz_callers;
mod boards;
mod changelog;
mod copy_to_clickhouse;
mod customer_value;
mod deletions;
mod errors;
mod fake_idp;
mod feedback;
mod feedback_loop;
mod first_hour;
mod hardening_accounts;
mod hardening_writes;
mod helpers;
mod identity;
mod kb_files;
mod keys;
mod limits;
mod markdown;
mod metrics;
mod pages;
mod pages_loop;
mod pg_pair;
mod projects;
mod refusals;
mod replicas;
mod roadmap;
mod tags;
mod teams;
mod testimonials;
mod webhooks;
