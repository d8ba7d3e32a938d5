//! The load that runs through every fault: writes of each kind and readiness probes, each request
//! recorded with its timing and status, each write with what identifies it afterwards.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::RequestBuilder;
use serde_json::{json, Value};

use crate::helpers::TestApp;

/// A browser's user agent: the worker counts bots' events as dropped, not stored.
const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Events,
    Documents,
    Feedback,
    Votes,
    Readyz,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Events,
        Kind::Documents,
        Kind::Feedback,
        Kind::Votes,
        Kind::Readyz,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Kind::Events => "POST /v1/analytics/events",
            Kind::Documents => "POST /v1/indexes/:id/documents",
            Kind::Feedback => "POST /v1/feedback",
            Kind::Votes => "POST /v1/feedback/:id/upvote|downvote",
            Kind::Readyz => "GET /readyz",
        }
    }
}

/// One request: when it started and ended (since the load began), and its status (`None`: no
/// answer within the client's timeout, or the connection failed).
#[derive(Clone, Debug)]
pub struct Record {
    pub kind: Kind,
    pub start: Duration,
    pub end: Duration,
    pub status: Option<u16>,
    pub error: Option<String>,
}

impl Record {
    pub fn ok(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }
}

pub fn is_2xx(status: Option<u16>) -> bool {
    status.is_some_and(|s| (200..300).contains(&s))
}

/// Events of one request, found again by the `req` property they all carry.
pub struct EventReq {
    pub tag: String,
    pub events: i64,
    pub status: Option<u16>,
}

pub struct DocReq {
    pub n: u32,
    pub status: Option<u16>,
    pub id: Option<String>,
    pub chunks: i64,
}

pub struct FeedbackReq {
    pub title: String,
    pub status: Option<u16>,
    pub id: Option<String>,
}

pub struct VoteReq {
    pub entry: String,
    pub voter: usize,
    pub value: i16,
    pub status: Option<u16>,
}

pub struct Load {
    pub app: TestApp,
    pub key: String,
    pub index_id: String,
    /// Session tokens of the users who vote.
    pub voters: Vec<String>,
    pub t0: Instant,
    stop: AtomicBool,
    pub log: Mutex<Vec<Record>>,
    pub events: Mutex<Vec<EventReq>>,
    pub docs: Mutex<Vec<DocReq>>,
    pub feedback: Mutex<Vec<FeedbackReq>>,
    pub votes: Mutex<Vec<VoteReq>>,
    /// Feature entries still to vote on, with the next voter: each (entry, voter) pair votes once,
    /// so every vote answered 2xx has exactly one row to find.
    ballots: Mutex<VecDeque<(String, usize)>>,
}

impl Load {
    pub fn new(
        app: TestApp,
        key: String,
        index_id: String,
        voters: Vec<String>,
        features: Vec<String>,
    ) -> Arc<Load> {
        Arc::new(Load {
            app,
            key,
            index_id,
            voters,
            t0: Instant::now(),
            stop: AtomicBool::new(false),
            log: Mutex::default(),
            events: Mutex::default(),
            docs: Mutex::default(),
            feedback: Mutex::default(),
            votes: Mutex::default(),
            ballots: Mutex::new(features.into_iter().map(|f| (f, 0)).collect()),
        })
    }

    /// Time since the load began.
    pub fn now(&self) -> Duration {
        self.t0.elapsed()
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    fn running(&self) -> bool {
        !self.stop.load(Ordering::SeqCst)
    }

    pub fn records(&self) -> Vec<Record> {
        self.log.lock().unwrap().clone()
    }

    /// Sends and records; the whole exchange, body included, is bounded by the client's timeout.
    async fn send(&self, kind: Kind, req: RequestBuilder) -> (Option<u16>, Value) {
        let start = self.now();
        let result = match req.send().await {
            Ok(res) => {
                let status = res.status().as_u16();
                res.bytes().await.map(|b| (status, b))
            }
            Err(e) => Err(e),
        };
        let (status, body, error) = match result {
            Ok((status, bytes)) => (
                Some(status),
                serde_json::from_slice(&bytes).unwrap_or(Value::Null),
                None,
            ),
            Err(e) => (None, Value::Null, Some(format!("{e:?}"))),
        };
        self.log.lock().unwrap().push(Record {
            kind,
            start,
            end: self.now(),
            status,
            error,
        });
        (status, body)
    }

    fn post(&self, path: &str) -> RequestBuilder {
        self.app.client.post(self.app.url(path))
    }

    /// Page views (one per request) and custom events (batches of 2 or 3), each tagged by request.
    pub async fn events(self: Arc<Self>, lane: u32) {
        let mut n = 0u32;
        while self.running() {
            n += 1;
            let tag = format!("{lane}-{n}");
            let count = 1 + i64::from(n % 3);
            let url = format!("https://fault.example/p/{tag}");
            let body = if count == 1 {
                json!({"url": url, "properties": {"req": tag}})
            } else {
                let events: Vec<Value> = (0..count)
                    .map(|i| json!({"name": "fault_load", "url": url, "properties": {"req": tag, "i": i}}))
                    .collect();
                json!({ "events": events })
            };
            let req = self
                .post("/v1/analytics/events")
                .header("X-Project-Key", &self.key)
                .header("User-Agent", CHROME)
                .json(&body);
            let (status, _) = self.send(Kind::Events, req).await;
            self.events.lock().unwrap().push(EventReq {
                tag,
                events: count,
                status,
            });
            tokio::time::sleep(Duration::from_millis(30)).await;
        }
    }

    /// Small documents: one or two chunks each, so the worker keeps up between faults.
    pub async fn documents(self: Arc<Self>) {
        let path = format!("/v1/indexes/{}/documents", self.index_id);
        let mut n = 0u32;
        while self.running() {
            n += 1;
            let content = format!(
                "Fault suite document {n}. A worker that dies mid-batch leaves its documents \
                 leased; when the lease runs out another worker embeds them. Queued jobs survive \
                 a Redis restart when Redis keeps an append-only file. {}",
                "Requests that reach a dead dependency answer 503 and store nothing. "
                    .repeat(n as usize % 4 * 12)
            );
            let req = self
                .post(&path)
                .header("X-Project-Key", &self.key)
                .json(&json!({"content": content, "metadata": {"n": n}}));
            let (status, body) = self.send(Kind::Documents, req).await;
            self.docs.lock().unwrap().push(DocReq {
                n,
                status,
                id: body["id"].as_str().map(str::to_owned),
                chunks: body["chunks_created"].as_i64().unwrap_or(0),
            });
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// Entries of the three types; every feature request that is accepted gets voted on.
    pub async fn feedback(self: Arc<Self>) {
        let mut n = 0u32;
        while self.running() {
            n += 1;
            let kind = ["feature", "bug", "feedback"][n as usize % 3];
            let title = format!("Fault feedback {n}");
            let req = self
                .post("/v1/feedback")
                .header("X-Project-Key", &self.key)
                .json(&json!({"title": title, "type": kind, "description": "sent while faults are injected"}));
            let (status, body) = self.send(Kind::Feedback, req).await;
            let id = body["id"].as_str().map(str::to_owned);
            if let (true, Some(id), "feature") = (is_2xx(status), &id, kind) {
                self.ballots.lock().unwrap().push_back((id.clone(), 0));
            }
            self.feedback
                .lock()
                .unwrap()
                .push(FeedbackReq { title, status, id });
            tokio::time::sleep(Duration::from_millis(120)).await;
        }
    }

    /// Each voter votes on each feature entry, the last voter down and the others up. With no new
    /// entry to vote on, a vote already cast is cast again (a repeated vote changes nothing), so
    /// votes keep coming while feedback cannot be created.
    pub async fn votes(self: Arc<Self>) {
        let mut repeat = 0usize;
        while self.running() {
            let fresh = self.ballots.lock().unwrap().pop_front();
            let ballot = fresh.clone().or_else(|| {
                let votes = self.votes.lock().unwrap();
                repeat += 7;
                let v = votes.get(repeat % votes.len().max(1))?;
                Some((v.entry.clone(), v.voter))
            });
            let Some((entry, voter)) = ballot else {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            let value: i16 = if voter + 1 == self.voters.len() {
                -1
            } else {
                1
            };
            let way = if value == 1 { "upvote" } else { "downvote" };
            let req = self
                .post(&format!("/v1/feedback/{entry}/{way}"))
                .bearer_auth(&self.voters[voter]);
            let (status, _) = self.send(Kind::Votes, req).await;
            if fresh.is_some() && voter + 1 < self.voters.len() {
                self.ballots
                    .lock()
                    .unwrap()
                    .push_back((entry.clone(), voter + 1));
            }
            self.votes.lock().unwrap().push(VoteReq {
                entry,
                voter,
                value,
                status,
            });
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
    }

    pub async fn readyz(self: Arc<Self>) {
        while self.running() {
            let req = self.app.client.get(self.app.url("/readyz"));
            self.send(Kind::Readyz, req).await;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}
