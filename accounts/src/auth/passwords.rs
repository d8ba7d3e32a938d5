//! argon2id password hashes, computed off the async runtime (each takes tens of milliseconds and
//! 19 MiB). A bounded number run at once: a flood of registrations or resets waits briefly, then
//! answers 503, instead of filling the blocking pool with hashes (which took ~9.5 GiB).

use std::sync::OnceLock;
use std::time::Duration;

use tokio::sync::Semaphore;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

use shipmate_core::{AppError, AppResult};

/// The PHC string of an argon2id hash (the crate's defaults: 19 MiB, 2 passes, 1 lane).
pub async fn hash(password: String) -> AppResult<String> {
    bounded(move || hash_now(&password)).await
}

/// How long a hash waits for its turn before the request answers 503.
const QUEUE_WAIT: Duration = Duration::from_secs(5);

/// Runs one hash or check on the blocking pool, at most one per core (two at least) at a time.
async fn bounded<T: Send + 'static>(
    work: impl FnOnce() -> AppResult<T> + Send + 'static,
) -> AppResult<T> {
    static SLOTS: OnceLock<Semaphore> = OnceLock::new();
    let slots = SLOTS.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Semaphore::new(cores.max(2))
    });
    let permit = tokio::time::timeout(QUEUE_WAIT, slots.acquire())
        .await
        .map_err(|_| {
            AppError::Unavailable("too many password checks at once; try again shortly".into())
        })?
        .map_err(|e| AppError::Internal(e.into()))?;
    // The permit goes with the work: a request dropped mid-hash still holds its slot until done.
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work()
    })
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
    bounded(move || {
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
