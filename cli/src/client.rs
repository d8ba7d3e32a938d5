//! The HTTP client: base URL, credentials, and problem+json errors turned into readable ones.

use std::fmt;
use std::time::Duration;

use reqwest::Method;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use shipmate_types::common::{FieldError, Problem as ProblemBody};

pub const DEFAULT_API_URL: &str = "http://127.0.0.1:8080";

/// Which credential a request carries.
#[derive(Clone, Copy, Debug)]
pub enum Auth<'a> {
    None,
    /// `Authorization: Bearer <session token>`.
    Session,
    /// The session acting in a project (`X-Project-Id: <project id>`), for key endpoints: members
    /// and viewers hold no secret key, and the CLI need not fetch it.
    InProject(&'a str),
}

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("{0}")]
    Api(Problem),
    #[error("not signed in to {0}; run `shipmate login` (or set SHIPMATE_TOKEN)")]
    NotSignedIn(String),
    #[error("could not reach {url}: {reason}")]
    Transport { url: String, reason: String },
    #[error("unexpected answer from {url}: {reason}")]
    Decode { url: String, reason: String },
}

/// An API error as the user reads it: the problem body's detail and field messages, and a hint.
#[derive(Debug, Clone)]
pub struct Problem {
    pub status: u16,
    pub detail: String,
    pub errors: Vec<FieldError>,
    /// What the user can do about it, when we know.
    pub hint: Option<&'static str>,
}

impl Problem {
    pub fn from_response(status: u16, body: &[u8], session: bool) -> Self {
        // Anything but the API's own problem body (a proxy's error page, say) is quoted instead.
        let (detail, errors) = match serde_json::from_slice::<ProblemBody>(body) {
            Ok(p) => (p.detail, p.errors),
            Err(_) => {
                let text = String::from_utf8_lossy(body);
                let snippet: String = text.trim().chars().take(200).collect();
                let detail = if snippet.is_empty() {
                    format!("the server answered HTTP {status}")
                } else {
                    format!("the server answered HTTP {status}: {snippet}")
                };
                (detail, Vec::new())
            }
        };
        let hint = (status == 401 && session).then_some("run `shipmate login` to sign in again");
        Problem {
            status,
            detail,
            errors,
            hint,
        }
    }
}

/// The detail, then any field message the detail does not already say, then the hint.
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)?;
        for e in &self.errors {
            let line = format!("{} {}", e.field, e.message);
            if !self.detail.contains(&line) {
                write!(f, "\n  {}: {}", e.field, e.message)?;
            }
        }
        if let Some(hint) = self.hint {
            write!(f, "\n  ({hint})")?;
        }
        Ok(())
    }
}

#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    base: String,
    token: Option<String>,
}

impl Client {
    pub fn new(base: &str, token: Option<String>) -> anyhow::Result<Self> {
        let http = reqwest::Client::builder()
            .user_agent(concat!("shipmate-cli/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(120))
            .build()?;
        Ok(Client {
            http,
            base: base.trim_end_matches('/').to_owned(),
            token,
        })
    }

    /// The same client carrying another session token.
    pub fn with_token(&self, token: String) -> Client {
        Client {
            http: self.http.clone(),
            base: self.base.clone(),
            token: Some(token),
        }
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    pub async fn get(
        &self,
        path: &str,
        auth: Auth<'_>,
        query: &[(&str, &str)],
    ) -> Result<Answer, ClientError> {
        self.send::<()>(Method::GET, path, auth, query, None).await
    }

    /// A `GET` of another representation than JSON (`Accept`), answered as text: a read's CSV.
    pub async fn get_text(
        &self,
        path: &str,
        auth: Auth<'_>,
        query: &[(&str, &str)],
        accept: &str,
    ) -> Result<String, ClientError> {
        let req = self
            .request(Method::GET, path, auth, query)?
            .header(reqwest::header::ACCEPT, accept);
        let bytes = self.execute(req, auth).await?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// A `GET` whose answer is only read, never printed as is.
    pub async fn get_as<T: DeserializeOwned>(
        &self,
        path: &str,
        auth: Auth<'_>,
        query: &[(&str, &str)],
    ) -> Result<T, ClientError> {
        self.get(path, auth, query).await?.decode()
    }

    pub async fn post<B: Serialize>(
        &self,
        path: &str,
        auth: Auth<'_>,
        body: &B,
    ) -> Result<Answer, ClientError> {
        self.send(Method::POST, path, auth, &[], Some(body)).await
    }

    /// A `POST` of an action that takes no body (rotate, test, retry, logout).
    pub async fn post_empty(&self, path: &str, auth: Auth<'_>) -> Result<Answer, ClientError> {
        self.send::<()>(Method::POST, path, auth, &[], None).await
    }

    pub async fn patch<B: Serialize>(
        &self,
        path: &str,
        auth: Auth<'_>,
        query: &[(&str, &str)],
        body: &B,
    ) -> Result<Answer, ClientError> {
        self.send(Method::PATCH, path, auth, query, Some(body))
            .await
    }

    pub async fn delete(&self, path: &str, auth: Auth<'_>) -> Result<Answer, ClientError> {
        self.send::<()>(Method::DELETE, path, auth, &[], None).await
    }

    /// A `PUT` of a JSON body (upserts).
    pub async fn put<B: Serialize>(
        &self,
        path: &str,
        auth: Auth<'_>,
        body: &B,
    ) -> Result<Answer, ClientError> {
        self.send(Method::PUT, path, auth, &[], Some(body)).await
    }

    /// A `POST` of a body already encoded (a multipart upload), answered in JSON.
    pub async fn post_raw(
        &self,
        path: &str,
        auth: Auth<'_>,
        content_type: &str,
        body: Vec<u8>,
    ) -> Result<Answer, ClientError> {
        let req = self
            .request(Method::POST, path, auth, &[])?
            .header(reqwest::header::CONTENT_TYPE, content_type)
            .body(body);
        let bytes = self.execute(req, auth).await?;
        self.json_answer(path, &bytes)
    }

    /// Sends one request; a 2xx answer's JSON body (`null` when empty), else the problem.
    async fn send<B: Serialize>(
        &self,
        method: Method,
        path: &str,
        auth: Auth<'_>,
        query: &[(&str, &str)],
        body: Option<&B>,
    ) -> Result<Answer, ClientError> {
        let mut req = self.request(method, path, auth, query)?;
        if let Some(b) = body {
            req = req.json(b);
        }
        let bytes = self.execute(req, auth).await?;
        self.json_answer(path, &bytes)
    }

    /// A request to `path` carrying the credential `auth` names.
    fn request(
        &self,
        method: Method,
        path: &str,
        auth: Auth<'_>,
        query: &[(&str, &str)],
    ) -> Result<reqwest::RequestBuilder, ClientError> {
        let url = format!("{}{path}", self.base);
        let mut req = self.http.request(method, &url);
        if !query.is_empty() {
            req = req.query(query);
        }
        let session = || {
            self.token
                .as_deref()
                .ok_or_else(|| ClientError::NotSignedIn(self.base.clone()))
        };
        Ok(match auth {
            Auth::None => req,
            Auth::Session => req.bearer_auth(session()?),
            Auth::InProject(project) => req.bearer_auth(session()?).header("X-Project-Id", project),
        })
    }

    /// A `POST` answered as a stream (`Accept: text/event-stream`): the response, its body still to
    /// read, once its head says 2xx; else the problem.
    pub async fn post_stream<B: Serialize>(
        &self,
        path: &str,
        auth: Auth<'_>,
        body: &B,
    ) -> Result<reqwest::Response, ClientError> {
        let req = self
            .request(Method::POST, path, auth, &[])?
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .json(body);
        self.head(req, auth).await
    }

    /// Sends `req`: a 2xx answer's body, else the problem.
    async fn execute(
        &self,
        req: reqwest::RequestBuilder,
        auth: Auth<'_>,
    ) -> Result<Vec<u8>, ClientError> {
        let res = self.head(req, auth).await?;
        let bytes = res.bytes().await.map_err(|e| self.transport(&e))?;
        Ok(bytes.to_vec())
    }

    /// Sends `req`: a 2xx response, else the problem.
    async fn head(
        &self,
        req: reqwest::RequestBuilder,
        auth: Auth<'_>,
    ) -> Result<reqwest::Response, ClientError> {
        let res = req.send().await.map_err(|e| self.transport(&e))?;
        let status = res.status();
        if !status.is_success() {
            let bytes = res.bytes().await.map_err(|e| self.transport(&e))?;
            let session = matches!(auth, Auth::Session | Auth::InProject(_));
            return Err(ClientError::Api(Problem::from_response(
                status.as_u16(),
                &bytes,
                session,
            )));
        }
        Ok(res)
    }

    pub fn transport(&self, e: &reqwest::Error) -> ClientError {
        ClientError::Transport {
            url: self.base.clone(),
            reason: error_chain(e),
        }
    }

    fn json_answer(&self, path: &str, bytes: &[u8]) -> Result<Answer, ClientError> {
        let url = format!("{}{path}", self.base);
        let json = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(bytes).map_err(|e| ClientError::Decode {
                url: url.clone(),
                reason: e.to_string(),
            })?
        };
        Ok(Answer { url, json })
    }
}

/// A successful answer. `--json` prints `json` exactly as the server sent it (fields this CLI
/// does not know included); tables decode it into the API's types.
#[derive(Debug)]
pub struct Answer {
    url: String,
    pub json: Value,
}

impl Answer {
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, ClientError> {
        T::deserialize(&self.json).map_err(|e| ClientError::Decode {
            url: self.url.clone(),
            reason: e.to_string(),
        })
    }
}

/// "error sending request: connection refused" rather than only the outermost message.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}
