//! Knowledge base: indexes of documents, chunked and embedded, searched by cosine similarity.

pub mod chunking;
pub mod documents;
pub mod embed;
pub mod indexes;
pub mod local;
pub mod models;
pub mod pool;
pub mod providers;
pub mod search;

/// Largest document content accepted, in bytes (the spec's 100 KB).
pub const MAX_DOCUMENT_BYTES: usize = 102_400;
