//! `/metrics` for Prometheus (loopback and `SHIPMATE_METRICS_ALLOW` only; anyone else gets 404),
//! and the request-duration histogram every routed request records.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::Instant;

use axum::extract::{ConnectInfo, MatchedPath, State};
use axum::http::{header, HeaderMap, Method, Request};
use axum::response::{IntoResponse, Response};
use shipmate_core::metrics;
use shipmate_core::AppError;
use tower::{Layer, Service};

use crate::problem::{ApiError, ApiResult};
use crate::state::AppState;

/// Records `shipmate_http_request_duration_seconds` by method, route template and status for every
/// routed request (unknown paths are not recorded: their values are unbounded). A plain tower
/// layer: `middleware::from_fn` boxed and cloned per request and cost 8-11 % of the single-event
/// ingest figure.
#[derive(Clone, Copy)]
pub struct TrackLayer;

impl<S> Layer<S> for TrackLayer {
    type Service = Track<S>;
    fn layer(&self, inner: S) -> Track<S> {
        Track { inner }
    }
}

#[derive(Clone)]
pub struct Track<S> {
    inner: S,
}

impl<S, B> Service<Request<B>> for Track<S>
where
    S: Service<Request<B>, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = TrackFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        TrackFuture {
            started: Instant::now(),
            method: req.method().clone(),
            route: req.extensions().get::<MatchedPath>().cloned(),
            inner: self.inner.call(req),
        }
    }
}

pin_project_lite::pin_project! {
    pub struct TrackFuture<F> {
        #[pin]
        inner: F,
        started: Instant,
        method: Method,
        route: Option<MatchedPath>,
    }
}

impl<F, E> Future for TrackFuture<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let res = ready!(this.inner.poll(cx));
        if let (Ok(r), Some(route)) = (&res, this.route.take()) {
            metrics::record_request(
                this.method.as_str(),
                route.as_str(),
                r.status().as_u16(),
                this.started.elapsed(),
            );
        }
        Poll::Ready(res)
    }
}

pub async fn scrape(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let client = state.client_ip(peer, &headers);
    let client = match client {
        std::net::IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map(std::net::IpAddr::V4)
            .unwrap_or(client),
        v4 => v4,
    };
    if !client.is_loopback() && !state.metrics_allow.iter().any(|n| n.contains(&client)) {
        return Err(ApiError::from(AppError::not_found("route")));
    }
    let body = metrics::render(&state.queue).await;
    Ok((
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        body,
    )
        .into_response())
}
