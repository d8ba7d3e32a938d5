//! Housekeeping once a minute (every worker runs it; the deletes are idempotent): expired OAuth
//! states, login failures, reset links and invites, and the visitor salts of days that have ended.
//! It runs whether or not anything else happens, so a salt goes within a minute after its UTC day
//! ends (the contract allows an hour) even when no event arrives.

use std::time::Duration;

use shipmate_shared::analytics::store;
use shipmate_shared::auth::housekeeping;
use sqlx::PgPool;
use tokio::sync::watch;

const EVERY: Duration = Duration::from_secs(60);

pub async fn run(db: PgPool, mut stop: watch::Receiver<bool>) {
    while !*stop.borrow() {
        round(&db).await;
        tokio::select! {
            _ = tokio::time::sleep(EVERY) => {}
            _ = stop.changed() => break,
        }
    }
}

/// One round; each purge is tried even when the other fails.
pub async fn round(db: &PgPool) {
    match housekeeping::purge(db).await {
        Ok(0) => {}
        Ok(gone) => tracing::debug!(gone, "purged expired sign-in records"),
        Err(e) => tracing::warn!(error = %e, "sign-in housekeeping failed; will retry"),
    }
    match store::purge_salts(db).await {
        Ok(0) => {}
        Ok(gone) => tracing::info!(gone, "deleted the visitor salts of ended days"),
        Err(e) => tracing::warn!(error = %e, "deleting old visitor salts failed; will retry"),
    }
}
