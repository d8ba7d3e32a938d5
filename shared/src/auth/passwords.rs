//! argon2id password hashes, computed off the async runtime (each takes tens of milliseconds).

use std::sync::OnceLock;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

use crate::{AppError, AppResult};

/// The PHC string of an argon2id hash (the crate's defaults: 19 MiB, 2 passes, 1 lane).
pub async fn hash(password: String) -> AppResult<String> {
    tokio::task::spawn_blocking(move || hash_now(&password))
        .await
        .map_err(|e| AppError::Internal(e.into()))?
}

fn hash_now(password: &str) -> AppResult<String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| AppError::Internal(anyhow::anyhow!("hashing a password: {e}")))
}

/// Whether the password matches the stored hash. Without a hash (no such account, or one that
/// signs in only through a provider) it checks against a fixed dummy hash and answers false, so
/// both cases take as long as a real check.
pub async fn verify(stored: Option<String>, password: String) -> AppResult<bool> {
    tokio::task::spawn_blocking(move || {
        let real = stored.is_some();
        let phc = match stored {
            Some(h) => h,
            None => dummy_hash()?.to_owned(),
        };
        let parsed = PasswordHash::new(&phc)
            .map_err(|e| AppError::Internal(anyhow::anyhow!("a stored password hash: {e}")))?;
        let ok = Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok();
        Ok(real && ok)
    })
    .await
    .map_err(|e| AppError::Internal(e.into()))?
}

fn dummy_hash() -> AppResult<&'static str> {
    static DUMMY: OnceLock<String> = OnceLock::new();
    if let Some(h) = DUMMY.get() {
        return Ok(h);
    }
    let h = hash_now("shipmate-dummy-password")?;
    Ok(DUMMY.get_or_init(|| h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hash_verifies_its_password_only() {
        let h = hash("correct horse battery".into()).await.unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(verify(Some(h.clone()), "correct horse battery".into())
            .await
            .unwrap());
        assert!(!verify(Some(h), "wrong horse battery".into()).await.unwrap());
        assert!(!verify(None, "shipmate-dummy-password".into())
            .await
            .unwrap());
    }
}
