//! OAuth 2.0 authorization code flow with PKCE (S256) and `state`, for GitHub, Google and one
//! generic OpenID Connect provider, each configured by environment.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use sqlx::PgPool;

use shipmate_core::secret::Secret;
use shipmate_core::tokens::{hash_token, random_token};
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::accounts::ProviderInfo;

#[derive(clap::Args, Debug, Clone, Default)]
pub struct OAuthSettings {
    /// GitHub OAuth app client id; GitHub sign-in is offered when set.
    #[arg(long, env = "SHIPMATE_GITHUB_CLIENT_ID")]
    pub github_client_id: Option<String>,
    /// GitHub OAuth app client secret.
    #[arg(long, env = "SHIPMATE_GITHUB_CLIENT_SECRET", hide_env_values = true)]
    pub github_client_secret: Option<Secret>,
    /// Google OAuth client id; Google sign-in is offered when set.
    #[arg(long, env = "SHIPMATE_GOOGLE_CLIENT_ID")]
    pub google_client_id: Option<String>,
    /// Google OAuth client secret.
    #[arg(long, env = "SHIPMATE_GOOGLE_CLIENT_SECRET", hide_env_values = true)]
    pub google_client_secret: Option<Secret>,
    /// Display name of the generic OpenID Connect provider (id `oidc`).
    #[arg(long, env = "SHIPMATE_OIDC_NAME", default_value = "Single sign-on")]
    pub oidc_name: String,
    /// Client id at the OpenID Connect provider; offered when this and the three URLs are set.
    #[arg(long, env = "SHIPMATE_OIDC_CLIENT_ID")]
    pub oidc_client_id: Option<String>,
    /// Client secret at the OpenID Connect provider.
    #[arg(long, env = "SHIPMATE_OIDC_CLIENT_SECRET", hide_env_values = true)]
    pub oidc_client_secret: Option<Secret>,
    /// Authorization endpoint of the OpenID Connect provider.
    #[arg(long, env = "SHIPMATE_OIDC_AUTH_URL")]
    pub oidc_auth_url: Option<String>,
    /// Token endpoint of the OpenID Connect provider.
    #[arg(long, env = "SHIPMATE_OIDC_TOKEN_URL")]
    pub oidc_token_url: Option<String>,
    /// Userinfo endpoint of the OpenID Connect provider (answers `sub`, `email`, `name`).
    #[arg(long, env = "SHIPMATE_OIDC_USERINFO_URL")]
    pub oidc_userinfo_url: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavor {
    GitHub,
    Oidc,
}

#[derive(Debug, Clone)]
pub struct Provider {
    pub id: &'static str,
    pub name: String,
    client_id: String,
    client_secret: Secret,
    auth_url: String,
    token_url: String,
    userinfo_url: String,
    scope: &'static str,
    flavor: Flavor,
}

/// The identity a provider vouches for.
#[derive(Debug, Clone)]
pub struct Identity {
    pub subject: String,
    pub email: String,
    pub name: Option<String>,
    /// Whether the provider vouches that the address is the user's (GitHub: a verified primary
    /// address; OpenID Connect: `email_verified`). Only then may it link to an existing account.
    pub email_verified: bool,
}

impl OAuthSettings {
    /// The configured providers, in display order.
    pub fn providers(&self) -> Vec<Provider> {
        let mut out = Vec::new();
        if let (Some(id), Some(secret)) = (&self.github_client_id, &self.github_client_secret) {
            out.push(Provider {
                id: "github",
                name: "GitHub".into(),
                client_id: id.clone(),
                client_secret: secret.clone(),
                auth_url: "https://github.com/login/oauth/authorize".into(),
                token_url: "https://github.com/login/oauth/access_token".into(),
                userinfo_url: "https://api.github.com/user".into(),
                scope: "read:user user:email",
                flavor: Flavor::GitHub,
            });
        }
        if let (Some(id), Some(secret)) = (&self.google_client_id, &self.google_client_secret) {
            out.push(Provider {
                id: "google",
                name: "Google".into(),
                client_id: id.clone(),
                client_secret: secret.clone(),
                auth_url: "https://accounts.google.com/o/oauth2/v2/auth".into(),
                token_url: "https://oauth2.googleapis.com/token".into(),
                userinfo_url: "https://openidconnect.googleapis.com/v1/userinfo".into(),
                scope: "openid email profile",
                flavor: Flavor::Oidc,
            });
        }
        if let (Some(id), Some(auth), Some(token), Some(userinfo)) = (
            &self.oidc_client_id,
            &self.oidc_auth_url,
            &self.oidc_token_url,
            &self.oidc_userinfo_url,
        ) {
            out.push(Provider {
                id: "oidc",
                name: self.oidc_name.clone(),
                client_id: id.clone(),
                client_secret: self.oidc_client_secret.clone().unwrap_or_default(),
                auth_url: auth.clone(),
                token_url: token.clone(),
                userinfo_url: userinfo.clone(),
                scope: "openid email profile",
                flavor: Flavor::Oidc,
            });
        }
        out
    }
}

impl Provider {
    pub fn info(&self) -> ProviderInfo {
        ProviderInfo {
            id: self.id.to_owned(),
            name: self.name.clone(),
        }
    }

    /// Where to send the browser, with PKCE S256 and our `state`.
    pub fn authorize_url(
        &self,
        redirect_uri: &str,
        state: &str,
        verifier: &str,
    ) -> AppResult<String> {
        let mut url = url::Url::parse(&self.auth_url).map_err(|e| AppError::Internal(e.into()))?;
        url.query_pairs_mut()
            .append_pair("response_type", "code")
            .append_pair("client_id", &self.client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("scope", self.scope)
            .append_pair("state", state)
            .append_pair("code_challenge", &pkce_challenge(verifier))
            .append_pair("code_challenge_method", "S256");
        Ok(url.into())
    }

    /// Exchanges the code for an access token and reads who signed in.
    pub async fn identify(
        &self,
        http: &reqwest::Client,
        redirect_uri: &str,
        code: &str,
        verifier: &str,
    ) -> AppResult<Identity> {
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("client_id", &self.client_id),
            ("client_secret", self.client_secret.expose()),
            ("code_verifier", verifier),
        ];
        let body = serde_urlencode(&form);
        let res = http
            .post(&self.token_url)
            .header("Accept", "application/json")
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .map_err(provider_down)?;
        if !res.status().is_success() {
            return Err(AppError::unauthorized(format!(
                "the identity provider refused the code ({})",
                res.status()
            )));
        }
        #[derive(Deserialize)]
        struct TokenResponse {
            access_token: Option<String>,
            error: Option<String>,
        }
        let token: TokenResponse = res.json().await.map_err(provider_down)?;
        let Some(access) = token.access_token else {
            return Err(AppError::unauthorized(format!(
                "the identity provider refused the code ({})",
                token.error.unwrap_or_default()
            )));
        };
        let info: serde_json::Value = self.get_json(http, &self.userinfo_url, &access).await?;
        let (subject, email, name, email_verified) = match self.flavor {
            Flavor::Oidc => (
                info["sub"].as_str().map(str::to_owned),
                info["email"].as_str().map(str::to_owned),
                info["name"].as_str().map(str::to_owned),
                // Some providers send the claim as a string.
                matches!(&info["email_verified"], serde_json::Value::Bool(true))
                    || info["email_verified"].as_str() == Some("true"),
            ),
            Flavor::GitHub => {
                // The profile's public email is not necessarily verified: take the verified
                // primary address, and treat only that as vouched for.
                let verified = self.github_primary_email(http, &access).await?;
                let email = verified
                    .clone()
                    .or_else(|| info["email"].as_str().map(str::to_owned));
                let name = info["name"]
                    .as_str()
                    .or(info["login"].as_str())
                    .map(str::to_owned);
                (
                    info["id"].as_i64().map(|i| i.to_string()),
                    email,
                    name,
                    verified.is_some(),
                )
            }
        };
        match (subject, email) {
            (Some(subject), Some(email)) => Ok(Identity {
                subject,
                email,
                name,
                email_verified,
            }),
            _ => Err(AppError::unauthorized(
                "the identity provider did not share an id and an email address",
            )),
        }
    }

    async fn get_json(
        &self,
        http: &reqwest::Client,
        url: &str,
        access: &str,
    ) -> AppResult<serde_json::Value> {
        let res = http
            .get(url)
            .bearer_auth(access)
            .header("Accept", "application/json")
            .header("User-Agent", "shipmate")
            .send()
            .await
            .map_err(provider_down)?;
        if !res.status().is_success() {
            return Err(AppError::unauthorized(format!(
                "the identity provider refused the token ({})",
                res.status()
            )));
        }
        res.json().await.map_err(provider_down)
    }

    async fn github_primary_email(
        &self,
        http: &reqwest::Client,
        access: &str,
    ) -> AppResult<Option<String>> {
        let emails = self
            .get_json(http, "https://api.github.com/user/emails", access)
            .await?;
        Ok(emails.as_array().and_then(|list| {
            list.iter()
                .find(|e| {
                    e["primary"].as_bool() == Some(true) && e["verified"].as_bool() == Some(true)
                })
                .and_then(|e| e["email"].as_str().map(str::to_owned))
        }))
    }
}

fn provider_down(e: reqwest::Error) -> AppError {
    AppError::Unavailable(format!("identity provider: {e}"))
}

fn serde_urlencode(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

pub fn pkce_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Where the flow ends: the dashboard (a path on this service) or the CLI's loopback listener.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    Dashboard {
        redirect_to: String,
    },
    Cli {
        callback: String,
        state: Option<String>,
    },
}

/// A dashboard destination is a local path (never `//host`); a CLI one a loopback `http` URL (RFC 8252).
pub fn parse_destination(
    redirect_to: Option<&str>,
    cli_callback: Option<&str>,
    cli_state: Option<&str>,
) -> AppResult<Destination> {
    if let Some(cb) = cli_callback {
        let url = url::Url::parse(cb)
            .map_err(|_| AppError::invalid("validation_failed", "cli_callback", "must be a URL"))?;
        let loopback = matches!(url.host_str(), Some("127.0.0.1") | Some("localhost"));
        if url.scheme() != "http" || !loopback || url.port().is_none() {
            return Err(AppError::invalid(
                "validation_failed",
                "cli_callback",
                "must be http://127.0.0.1:<port>/... or http://localhost:<port>/...",
            ));
        }
        return Ok(Destination::Cli {
            callback: cb.to_owned(),
            state: cli_state.map(str::to_owned),
        });
    }
    let path = redirect_to.unwrap_or("/dashboard");
    if !path.starts_with('/') || path.starts_with("//") || path.contains('\\') {
        return Err(AppError::invalid(
            "validation_failed",
            "redirect_to",
            "must be a path on this service",
        ));
    }
    Ok(Destination::Dashboard {
        redirect_to: path.to_owned(),
    })
}

/// Started sign-ins one client may have at once; an older one is dropped when another starts.
pub const STATES_PER_CLIENT: i64 = 10;

/// Who started a flow: the client's address and the random value of the browser's
/// `shipmate_oauth` cookie; only hashes of them are stored.
pub struct Starter<'a> {
    pub client_ip: std::net::IpAddr,
    /// Keys the address's hash, so the stored hash cannot be reversed by hashing every IPv4
    /// address: random per api process (the cap then holds per process, which is all it is for).
    pub client_salt: &'a str,
    pub browser_nonce: &'a str,
}

/// Remembers a started flow for ten minutes, bound to its browser; returns our `state`.
pub async fn save_state(
    db: &PgPool,
    provider: &str,
    verifier: &str,
    dest: &Destination,
    starter: &Starter<'_>,
) -> AppResult<String> {
    let state = random_token("", 32);
    let (redirect_to, cli_callback, cli_state) = match dest {
        Destination::Dashboard { redirect_to } => (Some(redirect_to.as_str()), None, None),
        Destination::Cli { callback, state } => (None, Some(callback.as_str()), state.as_deref()),
    };
    let client_hash = hash_token(&format!("{}{}", starter.client_salt, starter.client_ip));
    let mut tx = db.begin().await?;
    sqlx::query!("insert into oauth_states (state, provider, code_verifier, redirect_to, cli_callback, cli_state, client_hash, browser_hash)
         values ($1, $2, $3, $4, $5, $6, $7, $8)", &state, provider, verifier, redirect_to, cli_callback, cli_state,
         &client_hash, hash_token(starter.browser_nonce))
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "delete from oauth_states where client_hash = $1 and state not in
             (select state from oauth_states where client_hash = $1 order by created_at desc limit $2)",
        &client_hash,
        STATES_PER_CLIENT
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(state)
}

/// Takes a started flow back (once): its verifier and destination. Refused when it is unknown,
/// older than ten minutes, or comes back to another browser than the one that started it.
pub async fn take_state(
    db: &PgPool,
    provider: &str,
    state: &str,
    browser_nonce: Option<&str>,
) -> AppResult<(String, Destination)> {
    let row = sqlx::query!("delete from oauth_states where state = $1 and provider = $2 and created_at > now() - interval '10 minutes'
         returning code_verifier, redirect_to, cli_callback, cli_state, browser_hash", state, provider)
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::unauthorized("unknown or expired sign-in state"))?;
    let same_browser = browser_nonce.is_some_and(|n| {
        shipmate_core::tokens::secrets_equal(
            &hex::encode(hash_token(n)),
            &hex::encode(&row.browser_hash),
        )
    });
    if !same_browser {
        return Err(AppError::unauthorized(
            "this sign-in was started in another browser; start it again here",
        ));
    }
    let dest = match row.cli_callback {
        Some(callback) => Destination::Cli {
            callback,
            state: row.cli_state,
        },
        None => Destination::Dashboard {
            redirect_to: row.redirect_to.unwrap_or_else(|| "/dashboard".into()),
        },
    };
    Ok((row.code_verifier, dest))
}

pub fn new_verifier() -> String {
    random_token("", 64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_matches_rfc7636_example() {
        assert_eq!(
            pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn destinations() {
        assert!(parse_destination(None, Some("http://127.0.0.1:4567/cb"), None).is_ok());
        assert!(parse_destination(None, Some("http://evil.example:80/cb"), None).is_err());
        assert!(parse_destination(None, Some("https://127.0.0.1:4567/cb"), None).is_err());
        assert!(parse_destination(Some("//evil.example"), None, None).is_err());
        assert_eq!(
            parse_destination(Some("/dashboard/x"), None, None).unwrap(),
            Destination::Dashboard {
                redirect_to: "/dashboard/x".into()
            }
        );
    }
}
