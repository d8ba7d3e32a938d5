//! The shapes of the Shipmate API. Handlers take and return these, the CLI deserialises them, and the
//! OpenAPI document lists them, so a field or an enum value is written down once. Each request body
//! reads itself from JSON (`input::FromInput`, beside its struct), checking lengths, ranges and
//! formats and listing every wrong field at once.

// The derive names the trait by its crate path, here as everywhere else.
extern crate self as shipmate_types;

#[macro_use]
mod enums;

pub mod accounts;
pub mod alerts;
pub mod analytics;
pub mod boards;
pub mod changelog;
pub mod common;
pub mod customers;
pub mod email;
pub mod feedback;
pub mod imports;
pub mod input;
pub mod kb;
pub mod projects;
pub mod revenue;
pub mod search_analytics;
pub mod sse;
pub mod tags;
pub mod teams;
pub mod testimonials;
pub mod webhooks;

pub use enums::*;
