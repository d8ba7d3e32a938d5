//! Purging what sign-in leaves behind once it can no longer be used.

use sqlx::PgPool;

use shipmate_core::AppResult;

/// Deletes started OAuth sign-ins past their 10 minutes, login failures past their window, reset
/// and verification links and sessions a day past expiry, and invites 30 days past expiry (kept that long so a late
/// click gets a clear "expired" rather than "unknown"). Answers how many rows went.
pub async fn purge(db: &PgPool) -> AppResult<u64> {
    let statements = [
        "delete from oauth_states where created_at < now() - interval '10 minutes'",
        "delete from login_failures where failed_at < now() - interval '15 minutes'",
        "delete from password_resets where expires_at < now() - interval '1 day'",
        "delete from email_verifications where expires_at < now() - interval '1 day'",
        "delete from sessions where expires_at < now() - interval '1 day'",
        "delete from end_user_sessions where expires_at < now()",
        "delete from invites where expires_at < now() - interval '30 days'",
    ];
    let mut gone = 0;
    for sql in statements {
        gone += sqlx::query(sql).execute(db).await?.rows_affected();
    }
    Ok(gone)
}
