//! ClickHouse's HTTP interface, as every version from 18.16 on serves it: statements in the body,
//! settings and the database in the query string, rows in and out as `JSONEachRow`. No query
//! parameters (18.16 has none): values go into statements through [`quote`] alone.

use std::time::Duration;

use anyhow::{bail, Context};
use serde::de::DeserializeOwned;
use url::Url;

#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    /// The server's root (`http://host:8123/`), without credentials.
    base: Url,
    user: String,
    password: String,
    pub database: String,
    /// The cluster the tables are made on (`SHIPMATE_CLICKHOUSE_CLUSTER`), if any.
    pub cluster: Option<String>,
}

impl Client {
    /// From `http://user:password@host:8123/database` (`SHIPMATE_CLICKHOUSE_URL`).
    pub fn new(url: &str, cluster: Option<&str>, timeout: Duration) -> anyhow::Result<Client> {
        if let Some(c) =
            cluster.filter(|c| !c.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        {
            bail!("SHIPMATE_CLICKHOUSE_CLUSTER must be a cluster name of letters, digits and _, not {c:?}");
        }
        let mut base = Url::parse(url).context("SHIPMATE_CLICKHOUSE_URL is not a URL")?;
        let database = base.path().trim_matches('/').to_owned();
        if database.is_empty()
            || !database
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            bail!("SHIPMATE_CLICKHOUSE_URL must name a database of letters, digits and _ (…:8123/shipmate)");
        }
        let user = match base.username() {
            "" => "default".to_owned(),
            u => u.to_owned(),
        };
        let password = base.password().unwrap_or_default().to_owned();
        let _ = base.set_username("");
        let _ = base.set_password(None);
        base.set_path("/");
        let http = reqwest::Client::builder().timeout(timeout).build()?;
        Ok(Client {
            http,
            base,
            user,
            password,
            database,
            cluster: cluster.map(str::to_owned),
        })
    }

    async fn send(
        &self,
        sql: String,
        body: Option<String>,
        in_database: bool,
    ) -> anyhow::Result<String> {
        let mut url = self.base.clone();
        {
            let mut q = url.query_pairs_mut();
            if in_database {
                q.append_pair("database", &self.database);
            }
            // 18.16 takes credentials here (the X-ClickHouse-* headers came later).
            q.append_pair("user", &self.user);
            if !self.password.is_empty() {
                q.append_pair("password", &self.password);
            }
            // Numbers as numbers in JSON answers (18.16 quotes 64-bit ones by default).
            q.append_pair("output_format_json_quote_64bit_integers", "0");
            if body.is_some() {
                // On a cluster an insert answers once every shard has its rows (not when they are
                // queued on the server that took them), so a failure is seen and retried.
                q.append_pair("insert_distributed_sync", "1");
            }
            if self.cluster.is_some() {
                // A subquery on a sharded table runs on each shard's own rows: sharded by
                // visitor, a visitor's day is whole on one shard.
                q.append_pair("distributed_product_mode", "local");
            }
        }
        let insert = body.is_some();
        let request = match body {
            Some(rows) => self
                .http
                .post(url)
                .query(&[("query", sql.as_str())])
                .body(rows),
            None => self.http.post(url).body(sql),
        };
        let again = request.try_clone();
        let res = match (request.send().await, again) {
            // A pooled connection a restarted server closed fails before anything is read: a
            // statement that is not an insert is sent again once, on a new connection. (An
            // insert is not: its store looks for the rows before calling it failed.)
            (Err(e), Some(again)) if e.is_request() && !insert => again.send().await,
            (sent, _) => sent,
        }
        .context("ClickHouse did not answer")?;
        let status = res.status();
        let text = res.text().await.context("ClickHouse's answer was cut")?;
        if !status.is_success() {
            bail!("ClickHouse refused a statement ({status}): {}", text.trim());
        }
        Ok(text)
    }

    /// Runs a statement in the database.
    pub async fn execute(&self, sql: &str) -> anyhow::Result<()> {
        self.send(sql.to_owned(), None, true).await.map(drop)
    }

    /// Runs a statement outside any database (creating it).
    pub async fn execute_server(&self, sql: &str) -> anyhow::Result<()> {
        self.send(sql.to_owned(), None, false).await.map(drop)
    }

    /// The rows of a `select`, one `T` per row.
    pub async fn rows<T: DeserializeOwned>(&self, sql: &str) -> anyhow::Result<Vec<T>> {
        let text = self
            .send(format!("{sql} FORMAT JSONEachRow"), None, true)
            .await?;
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).with_context(|| format!("an unreadable row: {l}")))
            .collect()
    }

    /// Inserts rows (one JSON object each) into `table` in one block.
    pub async fn insert(&self, table: &str, rows: &[serde_json::Value]) -> anyhow::Result<()> {
        let mut body = String::new();
        for row in rows {
            body.push_str(&row.to_string());
            body.push('\n');
        }
        self.send(
            format!("INSERT INTO {table} FORMAT JSONEachRow"),
            Some(body),
            true,
        )
        .await
        .map(drop)
    }

    /// Whether the server answers.
    pub async fn ping(&self) -> bool {
        self.send("SELECT 1".into(), None, false).await.is_ok()
    }
}

/// A string literal: ClickHouse's escapes for backslash and quote, so a value can never end it.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_values_cannot_end_their_literal() {
        assert_eq!(quote("it's"), r"'it\'s'");
        assert_eq!(quote(r"a\'; drop"), r"'a\\\'; drop'");
    }

    #[test]
    fn the_url_names_the_database_and_keeps_credentials_out_of_it() {
        let c = Client::new(
            "http://bob:secret@127.0.0.1:8123/shipmate",
            None,
            Duration::from_secs(1),
        )
        .unwrap();
        assert_eq!((c.user.as_str(), c.password.as_str()), ("bob", "secret"));
        assert_eq!(c.database, "shipmate");
        assert_eq!(c.base.as_str(), "http://127.0.0.1:8123/");
        assert!(Client::new("http://127.0.0.1:8123/", None, Duration::from_secs(1)).is_err());
        assert!(Client::new(
            "http://127.0.0.1:8123/s",
            Some("a b"),
            Duration::from_secs(1)
        )
        .is_err());
    }
}
