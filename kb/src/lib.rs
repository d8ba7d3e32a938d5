//! Knowledge base: indexes of documents, chunked and embedded, searched by cosine similarity.

pub mod aimd;
pub mod answer;
pub mod chat;
pub mod chunking;
pub mod content;
pub mod documents;
pub mod embed;
pub mod filter;
pub mod gaps;
pub mod highlight;
pub mod indexes;
pub mod language;
pub mod local;
pub mod models;
pub mod pool;
pub mod provider_call;
pub mod providers;
pub mod roadmap;
pub mod search;
pub mod search_log;
pub mod search_logger;
pub mod search_stats;
pub mod settings;
pub mod typos;
pub mod upsert;

pub use settings::KbSettings;

/// Largest file the upload takes, in bytes (10 MB).
pub const MAX_FILE_BYTES: usize = 10 * 1024 * 1024;

/// Most documents in one batch upload.
pub const MAX_BATCH: usize = 100;
