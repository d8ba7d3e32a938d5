//! HTTP tests: each starts the real app on a free port against its own fresh database.

mod auth;
mod changelog;
mod errors;
mod feedback;
mod helpers;
mod pages;
mod projects;
mod testimonials;
