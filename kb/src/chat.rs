//! The chat API answers are asked of: OpenAI-compatible `POST {base}/chat/completions`, whole or
//! streamed (Server-Sent Events whose `data:` lines carry `choices[0].delta.content`, ended by
//! `data: [DONE]`). Calls in flight follow AIMD as the embedding providers' do; every call and every
//! streamed piece has a deadline, so a provider that hangs is cut.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};
use shipmate_core::secret::Secret;
use shipmate_core::{AppError, AppResult};
use shipmate_types::sse::SseReader;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use uuid::Uuid;

use super::aimd::Aimd;
use super::provider_call;
use super::KbSettings;

/// One message of the conversation sent to the model.
#[derive(Debug, Clone, Serialize)]
pub struct Message {
    pub role: &'static str,
    pub content: String,
}

pub struct Chat {
    http: reqwest::Client,
    limit: Aimd,
    url: String,
    key: Option<Secret>,
    model: String,
    timeout: Duration,
    projects: ProjectSlots,
}

impl Chat {
    /// The configured chat API, or None when answers are not configured.
    pub fn from_settings(s: &KbSettings) -> Option<Chat> {
        let base = s.chat_base()?;
        Some(Chat {
            http: reqwest::Client::builder()
                .connect_timeout(Duration::from_secs(10))
                .build()
                .unwrap_or_default(),
            limit: Aimd::new(s.chat_concurrency),
            url: format!("{}/chat/completions", base.trim_end_matches('/')),
            key: s.chat_key.clone(),
            model: s.chat_model.clone(),
            timeout: Duration::from_secs(s.chat_timeout_seconds.max(1)),
            projects: ProjectSlots::new(s.chat_project_concurrency),
        })
    }

    /// A place among the project's answers in flight, held until the answer is whole; none free:
    /// 429 (one tenant's questions cannot take every call the provider allows).
    pub fn slot(&self, project: Uuid) -> AppResult<OwnedSemaphorePermit> {
        self.projects.take(project).ok_or(AppError::RateLimited {
            retry_after_secs: 1,
        })
    }

    async fn send(&self, messages: &[Message], stream: bool) -> AppResult<reqwest::Response> {
        let body = json!({ "model": self.model, "messages": messages, "stream": stream });
        let call = provider_call::send(&self.limit, "chat provider", || {
            let req = self.http.post(&self.url).json(&body);
            match &self.key {
                Some(key) => req.bearer_auth(key.expose()),
                None => req,
            }
        });
        match tokio::time::timeout(self.timeout, call).await {
            Ok(Ok(res)) => Ok(res),
            Ok(Err(e)) => Err(AppError::Upstream(format!("{e:#}"))),
            Err(_) => Err(self.timed_out()),
        }
    }

    fn timed_out(&self) -> AppError {
        AppError::Upstream(format!(
            "no answer within {} s (SHIPMATE_CHAT_TIMEOUT_SECONDS)",
            self.timeout.as_secs()
        ))
    }

    /// The model's whole answer.
    pub async fn complete(&self, messages: &[Message]) -> AppResult<String> {
        let res = self.send(messages, false).await?;
        let body: Value = match tokio::time::timeout(self.timeout, res.json()).await {
            Ok(Ok(body)) => body,
            Ok(Err(e)) => return Err(AppError::Upstream(format!("unreadable answer: {e}"))),
            Err(_) => return Err(self.timed_out()),
        };
        body["choices"][0]["message"]["content"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| {
                AppError::Upstream("an answer without choices[0].message.content".into())
            })
    }

    /// The model's answer as it is written; the call has been answered 200 when this returns.
    pub async fn stream(&self, messages: &[Message]) -> AppResult<Deltas> {
        let res = self.send(messages, true).await?;
        Ok(Deltas {
            res,
            pieces: Pieces::default(),
            idle: self.timeout,
        })
    }
}

/// A streamed answer's pieces.
pub struct Deltas {
    res: reqwest::Response,
    pieces: Pieces,
    idle: Duration,
}

impl Deltas {
    /// The next piece of text; None once the answer is whole.
    pub async fn next(&mut self) -> AppResult<Option<String>> {
        loop {
            if let Some(text) = self.pieces.pending.pop_front() {
                return Ok(Some(text));
            }
            if self.pieces.done {
                return Ok(None);
            }
            match tokio::time::timeout(self.idle, self.res.chunk()).await {
                Err(_) => {
                    return Err(AppError::Upstream(format!(
                        "the stream sent nothing for {} s (SHIPMATE_CHAT_TIMEOUT_SECONDS)",
                        self.idle.as_secs()
                    )))
                }
                Ok(Err(e)) => return Err(AppError::Upstream(format!("the stream broke: {e}"))),
                Ok(Ok(None)) => self.pieces.finish()?,
                Ok(Ok(Some(bytes))) => self.pieces.feed(&bytes)?,
            }
        }
    }
}

/// The provider's stream read as its events arrive: each `data:` a `chat.completion.chunk` whose
/// delta's text is a piece, until `[DONE]`.
#[derive(Default)]
struct Pieces {
    reader: SseReader,
    pending: VecDeque<String>,
    done: bool,
}

impl Pieces {
    fn feed(&mut self, bytes: &[u8]) -> AppResult<()> {
        for event in self.reader.feed(bytes) {
            self.event(&event.data)?;
        }
        Ok(())
    }

    /// The stream ended (a stream that ends without `[DONE]` has still said all it had).
    fn finish(&mut self) -> AppResult<()> {
        if let Some(event) = self.reader.finish() {
            self.event(&event.data)?;
        }
        self.done = true;
        Ok(())
    }

    fn event(&mut self, data: &str) -> AppResult<()> {
        if self.done {
            return Ok(());
        }
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let event: Value = serde_json::from_str(data)
            .map_err(|e| AppError::Upstream(format!("an unreadable stream event: {e}")))?;
        if let Some(error) = event.get("error") {
            let message = error["message"].as_str().unwrap_or("an error event");
            return Err(AppError::Upstream(format!(
                "the stream reported: {message}"
            )));
        }
        if let Some(text) = event["choices"][0]["delta"]["content"].as_str() {
            if !text.is_empty() {
                self.pending.push_back(text.to_owned());
            }
        }
        Ok(())
    }
}

/// Each project's answers in flight, bounded.
struct ProjectSlots {
    per_project: usize,
    slots: Mutex<HashMap<Uuid, Arc<Semaphore>>>,
}

impl ProjectSlots {
    /// Projects remembered before idle ones are forgotten.
    const MOST: usize = 10_000;

    fn new(per_project: usize) -> Self {
        ProjectSlots {
            per_project: per_project.max(1),
            slots: Mutex::new(HashMap::new()),
        }
    }

    fn take(&self, project: Uuid) -> Option<OwnedSemaphorePermit> {
        let semaphore = {
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            if slots.len() >= Self::MOST {
                // A permit holds its semaphore: only projects with nothing in flight go.
                slots.retain(|_, s| Arc::strong_count(s) > 1);
            }
            slots
                .entry(project)
                .or_insert_with(|| Arc::new(Semaphore::new(self.per_project)))
                .clone()
        };
        semaphore.try_acquire_owned().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_events_split_anywhere_and_stops_at_done() {
        let stream = concat!(
            ": keep-alive\n\n",
            "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"Hé\"}}]}\r\n\r\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"llo [1]\"}}]}\n\n",
            "data: [DONE]\n\n",
            "data: {\"choices\":[{\"delta\":{\"content\":\"after the end\"}}]}\n\n",
        )
        .as_bytes();
        for cut in 0..stream.len() {
            let mut lines = Pieces::default();
            lines.feed(&stream[..cut]).unwrap();
            lines.feed(&stream[cut..]).unwrap();
            assert!(lines.done);
            let pieces: Vec<_> = lines.pending.iter().map(String::as_str).collect();
            assert_eq!(pieces, ["Hé", "llo [1]"], "cut at {cut}");
        }
    }

    #[test]
    fn an_error_event_fails_the_stream() {
        let mut lines = Pieces::default();
        let err = lines
            .feed(b"data: {\"error\":{\"message\":\"overloaded\"}}\n\n")
            .err()
            .unwrap();
        assert_eq!(err.code(), "upstream_failed");
    }

    #[test]
    fn a_project_has_its_own_bounded_slots() {
        let slots = ProjectSlots::new(2);
        let (a, b) = (Uuid::now_v7(), Uuid::now_v7());
        let held = [slots.take(a).unwrap(), slots.take(a).unwrap()];
        assert!(
            slots.take(a).is_none(),
            "a third answer of one project waits"
        );
        assert!(slots.take(b).is_some(), "another project is not held up");
        drop(held);
        assert!(slots.take(a).is_some());
    }
}
