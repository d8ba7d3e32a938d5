//! Housekeeping on an `apalis-cron` schedule, once a minute in every worker (the deletes are
//! idempotent): expired OAuth states, login failures, reset links and invites, the visitor salts of
//! days that have ended, the search log (rolled up to a minute ago; searches past the log's keep
//! deleted, their figures staying in the rollups), and finished deliveries older than the log keeps. It runs whether or not
//! anything else happens, so a salt goes within a minute after its UTC day ends (the contract allows
//! an hour) even when no event arrives.

use shipmate_accounts::auth::housekeeping;
use shipmate_analytics::salts;
use shipmate_kb::search_stats;
use shipmate_outbound::store as deliveries;
use sqlx::PgPool;

/// Days a finished delivery stays in the log.
const DELIVERY_LOG_DAYS: i32 = 30;
/// Days a search stays in the search log once rolled up: long enough for any click on it.
const SEARCH_LOG_DAYS: i32 = 30;

/// One round; each purge is tried even when another fails.
pub async fn round(db: &PgPool) {
    match housekeeping::purge(db).await {
        Ok(0) => {}
        Ok(gone) => tracing::debug!(gone, "purged expired sign-in records"),
        Err(e) => tracing::warn!(error = %e, "sign-in housekeeping failed; will retry"),
    }
    match salts::purge_salts(db).await {
        Ok(0) => {}
        Ok(gone) => tracing::info!(gone, "deleted the visitor salts of ended days"),
        Err(e) => tracing::warn!(error = %e, "deleting old visitor salts failed; will retry"),
    }
    match search_stats::roll_up(db).await {
        Ok(0) => {}
        Ok(searches) => tracing::debug!(searches, "rolled up the search log"),
        Err(e) => tracing::warn!(error = %e, "rolling up search analytics failed; will retry"),
    }
    match search_stats::purge_log(db, SEARCH_LOG_DAYS).await {
        Ok(0) => {}
        Ok(gone) => tracing::info!(gone, "deleted searches past the search log's keep"),
        Err(e) => tracing::warn!(error = %e, "purging the search log failed; will retry"),
    }
    match deliveries::purge(db, DELIVERY_LOG_DAYS).await {
        Ok(0) => {}
        Ok(gone) => tracing::info!(gone, "purged finished deliveries past the log's keep"),
        Err(e) => tracing::warn!(error = %e, "purging old deliveries failed; will retry"),
    }
}
