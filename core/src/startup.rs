//! Start-up: waiting for Postgres and Redis to be reachable.

use std::time::Duration;

/// Services may start before what they need is up (a worker before the api has created the
/// database, either one while Redis restarts): keep trying for a minute before giving up.
pub async fn retry<T, F, Fut>(what: &str, mut connect: F) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<T>>,
{
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        match connect().await {
            Ok(v) => return Ok(v),
            Err(e) if std::time::Instant::now() < deadline => {
                tracing::warn!(error = %e, "{what} not reachable yet; retrying");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(e) => return Err(e.context(format!("connecting to {what}"))),
        }
    }
}
