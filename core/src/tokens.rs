//! Opaque secrets: session tokens (`st_`) and project API keys (`pk_`).

use rand::distributions::Alphanumeric;
use rand::Rng;
use sha2::{Digest, Sha256};

/// `prefix` followed by `len` random base62 characters from the OS-seeded CSPRNG.
pub fn random_token(prefix: &str, len: usize) -> String {
    let body: String = rand::thread_rng()
        .sample_iter(&Alphanumeric)
        .take(len)
        .map(char::from)
        .collect();
    format!("{prefix}{body}")
}

pub fn new_session_token() -> String {
    random_token("st_", 43)
}

pub fn new_api_key() -> String {
    random_token("pk_", 40)
}

/// Tokens are high-entropy, so a plain SHA-256 is enough to store them without keeping them.
pub fn hash_token(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// Constant-time comparison for secrets held in memory.
pub fn secrets_equal(a: &str, b: &str) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_have_prefix_and_entropy() {
        let k = new_api_key();
        assert!(k.starts_with("pk_") && k.len() >= 35);
        assert!(k[3..].chars().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(new_api_key(), k);
        assert!(new_session_token().starts_with("st_"));
    }
}
