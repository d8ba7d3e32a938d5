//! Which database a read uses. Reads that may lag go to a replica (`shipmate_core::replicas`),
//! except a session's within `SHIPMATE_REPLICA_MAX_LAG_SECONDS` of its own write: a write
//! answered with success by a cookie session sets a cookie that lasts that long, and while the
//! browser sends it, its reads go to the primary. A cookie, so that whichever api process
//! serves the next read knows. API keys get no such window (the contract).

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;
use axum_extra::extract::CookieJar;
use shipmate_core::replicas::Replicas;

use crate::extract::SESSION_COOKIE;
use crate::state::AppState;

const WROTE_COOKIE: &str = "shipmate_wrote";

/// The pools for this request's reads that may lag: `ReadDb(replicas).run(|db| ...)`.
pub struct ReadDb(pub Replicas);

impl FromRequestParts<AppState> for ReadDb {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let wrote = CookieJar::from_headers(&parts.headers)
            .get(WROTE_COOKIE)
            .is_some();
        Ok(ReadDb(if wrote {
            state.replicas.pinned()
        } else {
            state.replicas.clone()
        }))
    }
}

/// Marks a cookie session's successful write (only when there are replicas to avoid).
pub async fn mark_writes(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let write = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS)
        && state.replicas.counts().1 > 0
        && CookieJar::from_headers(req.headers())
            .get(SESSION_COOKIE)
            .is_some();
    let mut res = next.run(req).await;
    if write && res.status().is_success() {
        let cookie = format!(
            "{WROTE_COOKIE}=1; Path=/; HttpOnly; SameSite=Lax; Max-Age={}",
            state.settings.common.replica_max_lag_seconds.max(1)
        );
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            res.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    res
}
