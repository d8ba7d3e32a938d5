//! Signing in from the terminal (RFC 8252: a loopback redirect), signing out, and `whoami`.
//!
//! The api does the sign-in (the dashboard's password page, or the OAuth code exchange with PKCE
//! against an identity provider); the CLI's part is a one-shot listener on 127.0.0.1 and a random
//! `state` that the final redirect must echo, so no other page or process can slip a token of its
//! own choosing into the CLI. `--with-token` skips the browser for machines without one.

use std::collections::HashMap;
use std::io::{BufRead, IsTerminal, Read};
use std::time::Duration;

use anyhow::{anyhow, bail, Context};
use rand::distributions::Alphanumeric;
use rand::Rng;
use shipmate_types::accounts::{LoggedOut, ProviderList, User};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::cli::LoginArgs;
use crate::client::{Auth, ClientError};
use crate::config::{self, Credentials};
use crate::ctx::Ctx;
use crate::output::print_json;

const LOGIN_TIMEOUT: Duration = Duration::from_secs(300);
/// A connection that sends no request line within this time is dropped (browsers preconnect).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
const MAX_REQUEST_HEAD: usize = 16 * 1024;

const PAGE_OK: &str =
    "<!doctype html><html><head><meta charset=\"utf-8\"><title>Shipmate</title></head>\
<body style=\"font-family:system-ui,sans-serif;text-align:center;margin-top:4em\">\
<h1>Signed in</h1><p>You can close this tab and return to the terminal.</p></body></html>";
const PAGE_FAILED: &str =
    "<!doctype html><html><head><meta charset=\"utf-8\"><title>Shipmate</title></head>\
<body style=\"font-family:system-ui,sans-serif;text-align:center;margin-top:4em\">\
<h1>Sign-in failed</h1><p>Return to the terminal for details.</p></body></html>";

pub async fn login(ctx: &Ctx, args: LoginArgs) -> anyhow::Result<()> {
    let token = if args.with_token {
        token_from_stdin()?
    } else {
        browser_login(ctx, args.provider).await?
    };

    let client = ctx.client.with_token(token.clone());
    let me = match client.get("/v1/me", Auth::Session, &[]).await {
        Ok(me) => me,
        Err(ClientError::Api(p)) if p.status == 401 => bail!(
            "{} did not accept that token ({}); nothing was stored",
            ctx.client.base(),
            p.detail
        ),
        Err(e) => return Err(e.into()),
    };
    let path = config::save(&Credentials {
        api_url: ctx.client.base().to_owned(),
        token,
    })?;
    ctx.show(&me, |me: User| {
        println!("Signed in as {}", me.email);
        eprintln!("Token stored in {}", path.display());
        Ok(())
    })
}

/// The loopback flow: the browser signs in (on the dashboard's page for `password`, at the
/// identity provider otherwise) and the api redirects it to our listener with the token.
async fn browser_login(ctx: &Ctx, provider: Option<String>) -> anyhow::Result<String> {
    let provider = match provider {
        Some(p) => p,
        None => first_provider(ctx).await?,
    };
    let listener = TcpListener::bind(("127.0.0.1", 0))
        .await
        .context("cannot open a local port for the sign-in callback")?;
    let port = listener.local_addr()?.port();
    let state = random_state();
    let callback = format!("http://127.0.0.1:{port}/callback");
    let url = start_url(ctx.client.base(), &provider, &callback, &state)?;

    eprintln!("Open this URL to sign in: {url}");
    if !no_browser() {
        open_browser(url.to_string());
    }

    tokio::time::timeout(LOGIN_TIMEOUT, wait_for_token(&listener, &state))
        .await
        .map_err(|_| anyhow!("gave up waiting for the sign-in after 5 minutes"))?
}

/// `--with-token`: the whole of standard input, trimmed (as `gh auth login --with-token`); at a
/// terminal, one pasted line.
fn token_from_stdin() -> anyhow::Result<String> {
    let stdin = std::io::stdin();
    let mut input = String::new();
    if stdin.is_terminal() {
        eprint!("Paste a personal access token: ");
        stdin.lock().read_line(&mut input)
    } else {
        stdin.lock().read_to_string(&mut input)
    }
    .context("cannot read the token from standard input")?;
    parse_token(&input)
}

fn parse_token(input: &str) -> anyhow::Result<String> {
    let token = input.trim();
    if token.is_empty() {
        bail!(
            "no token on standard input (try `shipmate login --with-token < token.txt`, with a \
             personal access token from the dashboard's account page)"
        );
    }
    // Two lines or a stray space would only fail later, as an unreadable header.
    if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        bail!("standard input must hold only the session token, on one line");
    }
    Ok(token.to_owned())
}

pub async fn logout(ctx: &Ctx) -> anyhow::Result<()> {
    let Some(token) = ctx.client.token() else {
        bail!("not signed in to {}", ctx.client.base());
    };
    match ctx
        .client
        .post_empty("/v1/auth/logout", Auth::Session)
        .await
    {
        Ok(_) => {}
        // Already expired or revoked: forgetting it locally is all that is left to do.
        Err(ClientError::Api(p)) if p.status == 401 => {}
        Err(e) => return Err(e.into()),
    }
    config::forget(token)?;
    if ctx.json {
        // The CLI's own report: an already revoked session leaves no server answer to print.
        print_json(&LoggedOut { logged_out: true })
    } else {
        println!("Signed out");
        Ok(())
    }
}

pub async fn whoami(ctx: &Ctx) -> anyhow::Result<()> {
    let me = ctx.client.get("/v1/me", Auth::Session, &[]).await?;
    ctx.show(&me, |me: User| {
        if me.name.is_empty() {
            println!("{}", me.email);
        } else {
            println!("{} ({})", me.email, me.name);
        }
        Ok(())
    })
}

async fn first_provider(ctx: &Ctx) -> anyhow::Result<String> {
    let list: ProviderList = ctx
        .client
        .get_as("/v1/auth/providers", Auth::None, &[])
        .await?;
    list.data.into_iter().next().map(|p| p.id).ok_or_else(|| {
        anyhow!(
            "{} offers no way to sign in (no password sign-in, no identity provider)",
            ctx.client.base()
        )
    })
}

fn random_state() -> String {
    rand::thread_rng()
        .sample_iter(&Alphanumeric)
        .take(32)
        .map(char::from)
        .collect()
}

/// `{api}/v1/auth/{provider}/start?cli_callback=...&state=...` (keeping any path prefix of the API URL).
fn start_url(base: &str, provider: &str, callback: &str, state: &str) -> anyhow::Result<url::Url> {
    let mut url = url::Url::parse(base).with_context(|| format!("invalid API URL `{base}`"))?;
    url.path_segments_mut()
        .map_err(|()| anyhow!("invalid API URL `{base}`"))?
        .pop_if_empty()
        .extend(["v1", "auth", provider, "start"]);
    url.query_pairs_mut()
        .append_pair("cli_callback", callback)
        .append_pair("state", state);
    Ok(url)
}

fn no_browser() -> bool {
    std::env::var("SHIPMATE_NO_BROWSER").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Opens the browser on a thread of its own: some openers wait for the browser to exit, and the
/// URL is printed anyway.
fn open_browser(url: String) {
    std::thread::spawn(move || {
        if open::that(&url).is_err() {
            eprintln!("(could not open a browser: open the URL above yourself)");
        }
    });
}

/// Answers requests on the listener until one brings the token back.
async fn wait_for_token(listener: &TcpListener, state: &str) -> anyhow::Result<String> {
    loop {
        let (mut stream, _) = listener
            .accept()
            .await
            .context("the sign-in callback listener failed")?;
        let target = match tokio::time::timeout(REQUEST_TIMEOUT, read_target(&mut stream)).await {
            Ok(Ok(Some(target))) => target,
            Ok(Ok(None)) => {
                respond(&mut stream, "400 Bad Request", PAGE_FAILED).await;
                continue;
            }
            // Idle or broken connection: not the redirect we wait for.
            Ok(Err(_)) | Err(_) => continue,
        };
        let (path, query) = target.split_once('?').unwrap_or((target.as_str(), ""));
        if path != "/callback" {
            respond(&mut stream, "404 Not Found", PAGE_FAILED).await;
            continue;
        }
        let params: HashMap<String, String> = url::form_urlencoded::parse(query.as_bytes())
            .into_owned()
            .collect();
        if params.get("state").map(String::as_str) != Some(state) {
            respond(&mut stream, "400 Bad Request", PAGE_FAILED).await;
            bail!("the sign-in callback carried the wrong state; nothing was stored (run `shipmate login` again)");
        }
        if let Some(error) = params.get("error") {
            respond(&mut stream, "400 Bad Request", PAGE_FAILED).await;
            bail!("sign-in failed: {error}");
        }
        match params.get("token").filter(|t| !t.is_empty()) {
            Some(token) => {
                respond(&mut stream, "200 OK", PAGE_OK).await;
                return Ok(token.clone());
            }
            None => {
                respond(&mut stream, "400 Bad Request", PAGE_FAILED).await;
                bail!("the sign-in callback carried no token");
            }
        }
    }
}

/// Reads the whole request head (so closing the socket does not reset it under the browser) and
/// returns the target of a `GET`; `None` for anything else.
async fn read_target(stream: &mut TcpStream) -> std::io::Result<Option<String>> {
    let mut head = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        if head.len() > MAX_REQUEST_HEAD {
            return Ok(None);
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&head);
    let mut parts = head.lines().next().unwrap_or_default().split_whitespace();
    Ok(match (parts.next(), parts.next()) {
        (Some("GET"), Some(target)) => Some(target.to_owned()),
        _ => None,
    })
}

async fn respond(stream: &mut TcpStream, status: &str, body: &str) {
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    // The browser may already be gone; the outcome is reported in the terminal either way.
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.flush().await;
    let _ = stream.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_url_carries_the_loopback_callback_and_state() {
        let url = start_url(
            "https://shipmate.example/api/",
            "oidc",
            "http://127.0.0.1:4567/callback",
            "abc",
        );
        assert_eq!(
            url.map(|u| u.to_string()).ok().as_deref(),
            Some("https://shipmate.example/api/v1/auth/oidc/start?cli_callback=http%3A%2F%2F127.0.0.1%3A4567%2Fcallback&state=abc")
        );
    }

    #[test]
    fn a_piped_token_is_trimmed_and_must_be_one_word() {
        assert_eq!(parse_token("  st_abc\n").ok().as_deref(), Some("st_abc"));
        assert!(parse_token(" \n").is_err());
        assert!(parse_token("st_a\nst_b\n").is_err());
    }

    #[test]
    fn states_are_long_and_random() {
        let (a, b) = (random_state(), random_state());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
