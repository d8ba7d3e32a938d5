//! A small OpenAI-compatible chat API (`POST /chat/completions`, whole or streamed as OpenAI
//! streams: `data: {chat.completion.chunk}` events ended by `data: [DONE]`), recording what it was
//! sent and behaving as a test asks.

// Shared with the CLI tests, which use part of it.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

pub const CHAT_KEY: &str = "sk-test-chat";
pub const CHAT_MODEL: &str = "test-chat-model";

#[derive(Clone, Copy, PartialEq)]
pub enum Behaviour {
    /// Answers with the reply (streamed in pieces of a few characters, `gap` apart).
    Answer,
    /// Answers 429 with `Retry-After: 0` this many times first, then as `Answer`.
    ThrottleFirst(usize),
    /// 500 to every call.
    Fail,
    /// Accepts the call and never answers.
    Hang,
    /// Streams one piece, then an error event.
    BreakMidStream,
}

pub struct Script {
    pub reply: String,
    pub behaviour: Behaviour,
    /// Time before the answer's head, and between streamed pieces.
    pub gap: Duration,
    /// Every request body received, in order.
    pub received: Vec<Value>,
}

pub struct FakeChat {
    pub url: String,
    pub script: Arc<Mutex<Script>>,
}

impl FakeChat {
    pub async fn start(reply: &str) -> Self {
        let script = Arc::new(Mutex::new(Script {
            reply: reply.into(),
            behaviour: Behaviour::Answer,
            gap: Duration::from_millis(10),
            received: Vec::new(),
        }));
        let router = Router::new()
            .route("/v1/chat/completions", post(completions))
            .with_state(script.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
        tokio::spawn(async move { axum::serve(listener, router).await });
        FakeChat { url, script }
    }

    /// The api's flags for this chat API.
    pub fn flags(&self) -> Vec<String> {
        [
            "--chat-url",
            &self.url,
            "--chat-key",
            CHAT_KEY,
            "--chat-model",
            CHAT_MODEL,
        ]
        .map(String::from)
        .to_vec()
    }

    pub fn set(&self, behaviour: Behaviour) {
        self.script.lock().unwrap().behaviour = behaviour;
    }

    pub fn received(&self) -> Vec<Value> {
        self.script.lock().unwrap().received.clone()
    }

    /// The user message of the `n`-th call.
    pub fn prompt(&self, n: usize) -> String {
        let received = self.received();
        received[n]["messages"][1]["content"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

async fn completions(
    State(script): State<Arc<Mutex<Script>>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let bearer = format!("Bearer {CHAT_KEY}");
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(bearer.as_str()) {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})),
        )
            .into_response();
    }
    let (reply, behaviour, gap) = {
        let mut s = script.lock().unwrap();
        s.received.push(body.clone());
        if let Behaviour::ThrottleFirst(n) = s.behaviour {
            s.behaviour = match n {
                0 | 1 => Behaviour::Answer,
                n => Behaviour::ThrottleFirst(n - 1),
            };
            if n > 0 {
                return (
                    StatusCode::TOO_MANY_REQUESTS,
                    [("retry-after", "0")],
                    Json(json!({"error": {"message": "Rate limit reached", "type": "requests"}})),
                )
                    .into_response();
            }
        }
        (s.reply.clone(), s.behaviour, s.gap)
    };
    match behaviour {
        Behaviour::Fail => return (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({"error": {"message": "The server had an error", "type": "server_error"}})),
        )
            .into_response(),
        Behaviour::Hang => std::future::pending::<()>().await,
        _ => {}
    }
    tokio::time::sleep(gap).await;
    if body["stream"] != true {
        return Json(json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        }))
        .into_response();
    }
    let chunk = |delta: Value, finish: Value| {
        let event = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0,
            "model": body["model"], "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {event}\n\n")
    };
    let mut events = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    let chars: Vec<char> = reply.chars().collect();
    for piece in chars.chunks(7) {
        let text: String = piece.iter().collect();
        events.push(chunk(json!({"content": text}), Value::Null));
        if behaviour == Behaviour::BreakMidStream {
            events.push("data: {\"error\":{\"message\":\"overloaded\"}}\n\n".into());
            break;
        }
    }
    events.push(chunk(json!({}), json!("stop")));
    events.push("data: [DONE]\n\n".into());
    let stream = futures::stream::unfold(events.into_iter(), move |mut events| async move {
        let event = events.next()?;
        tokio::time::sleep(gap).await;
        Some((Ok::<_, std::io::Error>(event), events))
    });
    (
        [("content-type", "text/event-stream")],
        Body::from_stream(stream),
    )
        .into_response()
}
