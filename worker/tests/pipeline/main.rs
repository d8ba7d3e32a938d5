//! The knowledge base end to end: the api and real workers against real Postgres and Redis.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

#[path = "../../../api/tests/api/helpers.rs"]
mod helpers;

mod analytics;
mod analytics_alerts;
mod analytics_engagement;
mod analytics_explore;
mod analytics_imports;
mod analytics_journeys;
mod analytics_live;
mod analytics_revenue;
mod analytics_segments;
mod analytics_sharing;
mod analytics_tenants;
mod boards_access;
mod chat_webhooks;
mod clickhouse;
mod delivery;
mod email;
mod fake_chat;
mod fakes;
mod github;
mod health;
mod job_spans;
mod kb_analytics;
mod kb_answers;
mod kb_api;
mod kb_bulk;
mod kb_file_names;
mod kb_files;
mod kb_gaps;
mod kb_ingest;
mod kb_roadmap;
mod kb_search_modes;
mod kb_typos;
mod loop_delivery;
mod privacy;
mod provider_concurrency;
mod providers;
mod receivers;
mod resilience;
mod similar;
mod support;
