//! What every command needs: the API client and the output mode. A module of its own so that
//! `login` and `commands` both depend on it, and not on each other.

use anyhow::anyhow;
use serde::de::DeserializeOwned;

use crate::client::{Answer, Client, DEFAULT_API_URL};
use crate::config;
use crate::output::print_json;

pub struct Ctx {
    pub client: Client,
    pub json: bool,
}

impl Ctx {
    /// The API URL is `--api-url` / `SHIPMATE_API_URL`, else the one signed in to, else the
    /// default. The stored token is only ever sent to the URL it was issued by; `SHIPMATE_TOKEN`
    /// wins.
    pub fn new(api_url: Option<&str>, json: bool) -> anyhow::Result<Self> {
        let stored = config::load();
        let base = api_url
            .map(str::to_owned)
            .filter(|u| !u.trim().is_empty())
            .or_else(|| stored.as_ref().map(|c| c.api_url.clone()))
            .unwrap_or_else(|| DEFAULT_API_URL.to_owned());
        let base = base.trim_end_matches('/').to_owned();
        url::Url::parse(&base).map_err(|e| anyhow!("invalid API URL `{base}`: {e}"))?;
        let token = std::env::var("SHIPMATE_TOKEN")
            .ok()
            .filter(|t| !t.trim().is_empty())
            .or_else(|| {
                stored
                    .filter(|c| c.api_url.trim_end_matches('/') == base)
                    .map(|c| c.token)
            });
        Ok(Ctx {
            client: Client::new(&base, token)?,
            json,
        })
    }

    /// With `--json`, the answer as the server sent it; otherwise `human` prints it decoded.
    pub fn show<T: DeserializeOwned>(
        &self,
        answer: &Answer,
        human: impl FnOnce(T) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        if self.json {
            return print_json(&answer.json);
        }
        human(answer.decode()?)
    }

    /// With `--json`, the answer as the server sent it; otherwise `message`.
    pub fn done(&self, answer: &Answer, message: &str) -> anyhow::Result<()> {
        if self.json {
            return print_json(&answer.json);
        }
        println!("{message}");
        Ok(())
    }
}
