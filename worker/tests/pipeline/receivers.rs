//! What deliveries reach in the tests: a webhook receiver and an SMTP sink, both real servers on
//! 127.0.0.1 that record what arrives.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::Router;
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// One request the receiver got.
#[derive(Clone, Debug)]
pub struct Hit {
    pub headers: HashMap<String, String>,
    pub body: String,
}

impl Hit {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap()
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).map(String::as_str).unwrap_or("")
    }
}

/// How the receiver answers the next request.
#[derive(Clone, Copy, Debug)]
pub enum Answer {
    Status(u16),
    /// Never answer (until the test ends).
    Hang,
}

#[derive(Default)]
struct ReceiverState {
    hits: Vec<Hit>,
    /// Answers for the next requests; when empty, 200.
    script: VecDeque<Answer>,
}

#[derive(Clone)]
pub struct Receiver {
    pub url: String,
    state: Arc<Mutex<ReceiverState>>,
}

async fn receive(
    State(state): State<Arc<Mutex<ReceiverState>>>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let answer = {
        let mut s = state.lock().unwrap();
        s.hits.push(Hit {
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_owned()))
                .collect(),
            body: String::from_utf8_lossy(&body).into_owned(),
        });
        s.script.pop_front().unwrap_or(Answer::Status(200))
    };
    match answer {
        Answer::Status(code) => StatusCode::from_u16(code).unwrap(),
        Answer::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            StatusCode::OK
        }
    }
}

impl Receiver {
    pub async fn start() -> Receiver {
        let state = Arc::new(Mutex::new(ReceiverState::default()));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let app = Router::new()
            .route("/hook", post(receive))
            .with_state(state.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Receiver { url, state }
    }

    pub fn script(&self, answers: &[Answer]) {
        self.state
            .lock()
            .unwrap()
            .script
            .extend(answers.iter().copied());
    }

    pub fn hits(&self) -> Vec<Hit> {
        self.state.lock().unwrap().hits.clone()
    }

    /// Waits (deadline `secs`) until at least `n` requests arrived; returns them all.
    pub async fn wait_for(&self, n: usize, secs: u64) -> Vec<Hit> {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let hits = self.hits();
            if hits.len() >= n {
                return hits;
            }
            assert!(
                Instant::now() < deadline,
                "the receiver got {} requests in {secs} s, expected {n}",
                hits.len()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Checks a Standard Webhooks signature header against a `whsec_` secret: true if any of its
/// space-separated signatures matches.
pub fn signature_valid(hit: &Hit, secret: &str) -> bool {
    use hmac::{Hmac, Mac};
    let key = B64.decode(secret.strip_prefix("whsec_").unwrap()).unwrap();
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    let content = format!(
        "{}.{}.{}",
        hit.header("webhook-id"),
        hit.header("webhook-timestamp"),
        hit.body
    );
    mac.update(content.as_bytes());
    let expected = format!("v1,{}", B64.encode(mac.finalize().into_bytes()));
    hit.header("webhook-signature")
        .split(' ')
        .any(|s| s == expected)
}

/// One message the sink accepted.
#[derive(Clone, Debug)]
pub struct Mail {
    pub to: Vec<String>,
    pub data: String,
}

impl Mail {
    /// The data with quoted-printable undone (soft line breaks and `=XX`), for searching.
    pub fn decoded(&self) -> String {
        let joined = self.data.replace("=\n", "");
        let mut out = Vec::with_capacity(joined.len());
        let bytes = joined.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'=' && i + 2 < bytes.len() {
                if let Ok(b) = u8::from_str_radix(&joined[i + 1..i + 3], 16) {
                    out.push(b);
                    i += 3;
                    continue;
                }
            }
            out.push(bytes[i]);
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    /// The first link in the message that starts with `prefix`.
    pub fn link(&self, prefix: &str) -> String {
        let text = self.decoded();
        let start = text
            .find(prefix)
            .unwrap_or_else(|| panic!("no {prefix} link in {text}"));
        text[start..]
            .split(|c: char| c.is_whitespace() || c == '"' || c == '<' || c == '>')
            .next()
            .unwrap()
            .to_owned()
    }
}

/// A minimal SMTP server: accepts every message, except that recipients listed in `reject` get
/// `550` (a permanent failure, as a mailbox that does not exist).
#[derive(Clone)]
pub struct SmtpSink {
    pub url: String,
    mails: Arc<Mutex<Vec<Mail>>>,
}

impl SmtpSink {
    pub async fn start(reject: &[&str]) -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("smtp://{}", listener.local_addr().unwrap());
        let mails = Arc::new(Mutex::new(Vec::new()));
        let reject: Vec<String> = reject.iter().map(|s| s.to_string()).collect();
        let store = mails.clone();
        tokio::spawn(async move {
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let (store, reject) = (store.clone(), reject.clone());
                tokio::spawn(async move {
                    let _ = session(socket, store, reject).await;
                });
            }
        });
        SmtpSink { url, mails }
    }

    pub fn mails(&self) -> Vec<Mail> {
        self.mails.lock().unwrap().clone()
    }

    /// Waits (deadline `secs`) for a message to `to` whose data contains `needle`.
    pub async fn wait_for(&self, to: &str, needle: &str, secs: u64) -> Mail {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if let Some(m) = self
                .mails()
                .into_iter()
                .find(|m| m.to.iter().any(|t| t == to) && m.decoded().contains(needle))
            {
                return m;
            }
            assert!(
                Instant::now() < deadline,
                "no mail to {to} containing {needle:?} within {secs} s; got {:?}",
                self.mails().iter().map(|m| &m.to).collect::<Vec<_>>()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

async fn session(
    socket: tokio::net::TcpStream,
    store: Arc<Mutex<Vec<Mail>>>,
    reject: Vec<String>,
) -> std::io::Result<()> {
    let (read, mut write) = socket.into_split();
    let mut lines = BufReader::new(read).lines();
    write.write_all(b"220 sink ESMTP\r\n").await?;
    let mut to = Vec::new();
    while let Some(line) = lines.next_line().await? {
        let upper = line.to_ascii_uppercase();
        let reply: &[u8] = if upper.starts_with("EHLO") || upper.starts_with("HELO") {
            b"250-sink\r\n250 8BITMIME\r\n"
        } else if upper.starts_with("MAIL FROM") {
            to.clear();
            b"250 ok\r\n"
        } else if upper.starts_with("RCPT TO") {
            let addr = line[8..]
                .trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_owned();
            if reject.contains(&addr) {
                b"550 5.1.1 no such mailbox\r\n"
            } else {
                to.push(addr);
                b"250 ok\r\n"
            }
        } else if upper == "DATA" {
            write.write_all(b"354 go ahead\r\n").await?;
            let mut data = String::new();
            while let Some(l) = lines.next_line().await? {
                if l == "." {
                    break;
                }
                data.push_str(&l);
                data.push('\n');
            }
            store.lock().unwrap().push(Mail {
                to: std::mem::take(&mut to),
                data,
            });
            b"250 queued\r\n"
        } else if upper == "QUIT" {
            write.write_all(b"221 bye\r\n").await?;
            return Ok(());
        } else {
            b"250 ok\r\n"
        };
        write.write_all(reply).await?;
    }
    Ok(())
}
