//! One call to a third-party model API (an embedding provider, the chat API): sent within the
//! process's AIMD limit on calls in flight, retrying transient failures with backoff that honours
//! `Retry-After`.

use std::time::Duration;

use anyhow::{anyhow, bail};

use super::aimd::Aimd;

const ATTEMPTS: u32 = 5;

/// Sends the request built by `make` until it succeeds and returns the response (its body still
/// to read); `who` names the API in errors and logs.
pub async fn send(
    limit: &Aimd,
    who: &str,
    make: impl Fn() -> reqwest::RequestBuilder,
) -> anyhow::Result<reqwest::Response> {
    let mut delay = Duration::from_millis(200);
    for attempt in 1..=ATTEMPTS {
        let last = attempt == ATTEMPTS;
        let permit = limit.acquire().await;
        match make().send().await {
            Ok(res) if res.status().is_success() => {
                permit.succeeded();
                return Ok(res);
            }
            Ok(res) if res.status().as_u16() == 429 || res.status().is_server_error() => {
                let status = res.status();
                if last {
                    bail!("{who} answered {status} after {ATTEMPTS} attempts");
                }
                let wait = res
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<f64>().ok())
                    .map(|s| Duration::from_secs_f64(s.clamp(0.0, 60.0)))
                    .unwrap_or(delay);
                tracing::warn!(%status, attempt, wait_ms = wait.as_millis() as u64, limit = limit.limit(), "{who} busy; retrying");
                if status.as_u16() == 429 || status.as_u16() == 503 {
                    // Rate limited or overloaded: every call of this process slows down.
                    permit.overloaded(wait);
                } else {
                    drop(permit);
                    tokio::time::sleep(wait).await;
                }
            }
            Ok(res) => {
                let status = res.status();
                let body = res.text().await.unwrap_or_default();
                bail!(
                    "{who} refused the request ({status}): {}",
                    body.chars().take(300).collect::<String>()
                );
            }
            Err(e) if last => return Err(e.into()),
            Err(e) => {
                drop(permit);
                tracing::warn!(error = %e, attempt, "{who} unreachable; retrying");
                tokio::time::sleep(delay).await;
            }
        }
        delay = (delay * 2).min(Duration::from_secs(10));
    }
    Err(anyhow!("{who}: retries exhausted"))
}
