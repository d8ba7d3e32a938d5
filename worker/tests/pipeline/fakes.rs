//! Small fake embedding vendors: deterministic bag-of-words vectors, so similar texts are close.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

/// A unit vector of `dims` from the words of `text` (each word hashed to one dimension).
pub fn bag_of_words(text: &str, dims: usize) -> Vec<f32> {
    let mut v = vec![0f32; dims];
    for word in text
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        let h = word.bytes().fold(1469598103934665603u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(1099511628211)
        });
        v[(h % dims as u64) as usize] += 1.0;
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
    v.iter_mut().for_each(|x| *x /= n);
    v
}

#[derive(Default)]
pub struct Counters {
    pub calls: AtomicUsize,
    /// Answer 429 (with `Retry-After: 0`) to this many calls first.
    pub throttle_first: AtomicUsize,
    /// Refuse every call with 400.
    pub refuse: std::sync::atomic::AtomicBool,
    pub last_input_type: Mutex<Vec<String>>,
    /// Milliseconds each provider A call takes.
    pub delay_ms: AtomicU64,
    /// Provider A answers 429 with `Retry-After: 1` to a call beyond this many in flight (0: no cap).
    pub cap: AtomicUsize,
    pub in_flight: AtomicUsize,
    pub max_in_flight: AtomicUsize,
    /// When each provider A call arrived, and whether it was throttled.
    pub arrivals: Mutex<Vec<(Instant, bool)>>,
}

/// A provider A call in flight (counted until the answer is sent).
struct InFlight<'a>(&'a Counters);

impl<'a> InFlight<'a> {
    fn enter(c: &'a Counters) -> (Self, usize) {
        let now = c.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        c.max_in_flight.fetch_max(now, Ordering::SeqCst);
        (InFlight(c), now)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

pub struct FakeProvider {
    pub url: String,
    pub counters: Arc<Counters>,
}

impl FakeProvider {
    pub async fn start() -> Self {
        let counters = Arc::new(Counters::default());
        let router = Router::new()
            .route("/embeddings", post(provider_a))
            .route("/models/{call}", post(provider_b))
            .with_state(counters.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        tokio::spawn(async move { axum::serve(listener, router).await });
        FakeProvider { url, counters }
    }
}

fn gate(c: &Counters) -> Option<Response> {
    c.calls.fetch_add(1, Ordering::SeqCst);
    if c.refuse.load(Ordering::SeqCst) {
        return Some(
            (StatusCode::BAD_REQUEST, Json(json!({"error": "bad model"}))).into_response(),
        );
    }
    let left = c.throttle_first.load(Ordering::SeqCst);
    if left > 0 {
        c.throttle_first.store(left - 1, Ordering::SeqCst);
        return Some(
            (
                StatusCode::TOO_MANY_REQUESTS,
                [("retry-after", "0")],
                "slow down",
            )
                .into_response(),
        );
    }
    None
}

async fn provider_a(
    State(c): State<Arc<Counters>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some("Bearer key-a") {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    if let Some(r) = gate(&c) {
        return r;
    }
    let (_call, now) = InFlight::enter(&c);
    let cap = c.cap.load(Ordering::SeqCst);
    let throttled = cap > 0 && now > cap;
    c.arrivals.lock().unwrap().push((Instant::now(), throttled));
    if throttled {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            [("retry-after", "1")],
            "over the limit",
        )
            .into_response();
    }
    tokio::time::sleep(std::time::Duration::from_millis(
        c.delay_ms.load(Ordering::SeqCst),
    ))
    .await;
    if let Ok(mut t) = c.last_input_type.lock() {
        t.push(body["input_type"].as_str().unwrap_or_default().to_owned());
    }
    let data: Vec<Value> = body["input"]
        .as_array()
        .map(|a| a.iter().enumerate().map(|(i, t)| json!({"index": i, "embedding": bag_of_words(t.as_str().unwrap_or_default(), 1024)})).collect())
        .unwrap_or_default();
    Json(json!({"data": data})).into_response()
}

async fn provider_b(
    State(c): State<Arc<Counters>>,
    Path(call): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    if headers.get("x-goog-api-key").and_then(|v| v.to_str().ok()) != Some("key-b")
        || !call.ends_with(":batchEmbedContents")
    {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    if let Some(r) = gate(&c) {
        return r;
    }
    let embeddings: Vec<Value> = body["requests"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|r| {
                    if let Ok(mut t) = c.last_input_type.lock() {
                        t.push(r["taskType"].as_str().unwrap_or_default().to_owned());
                    }
                    json!({"values": bag_of_words(r["content"]["parts"][0]["text"].as_str().unwrap_or_default(), 3072)})
                })
                .collect()
        })
        .unwrap_or_default();
    Json(json!({"embeddings": embeddings})).into_response()
}
