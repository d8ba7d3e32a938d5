//! `shipmate-core`: what every area of Shipmate stands on, and nothing of any one area: the domain
//! error (`AppError`, whose client errors carry a `Refusal` kind the api turns into HTTP), the
//! database pool and migrations, tokens and their hashes, the Redis streams queue, metrics, and
//! start-up retries.

pub mod db;
pub mod error;
pub mod health;
pub mod masked;
pub mod metrics;
pub mod params;
pub mod queue;
pub mod replicas;
pub mod secret;
pub mod shared_rate;
pub mod startup;
pub mod tokens;

pub use error::{AppError, AppResult};
