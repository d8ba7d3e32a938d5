//! Sign-in: identity providers (OAuth 2.0 + PKCE), the development login, sessions.

use std::collections::HashMap;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::header::{LOCATION, SET_COOKIE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use axum_extra::extract::CookieJar;
use shipmate_accounts::auth::oauth::{self, Destination, ProviderInfo};
use shipmate_accounts::auth::{sessions, users, User, SESSION_DAYS};
use shipmate_core::error::Refusal;
use shipmate_core::tokens::random_token;
use shipmate_core::AppError;
use shipmate_types::accounts::{DevLogin, LoggedOut};

use super::schemas::{ProviderList, SignedIn};
use crate::extract::{JsonBody, SessionUser, SESSION_COOKIE};
use crate::pages::{html_page, layout};
use crate::problem::{ApiError, ApiResult};

/// Holds the random value that binds a started sign-in to its browser.
const OAUTH_COOKIE: &str = "shipmate_oauth";
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/auth/providers", get(providers))
        .route("/v1/auth/dev-login", post(dev_login))
        .route("/v1/auth/logout", post(logout))
        .route("/v1/auth/{provider}/start", get(start))
        .route("/v1/auth/{provider}/callback", get(callback))
        .route("/v1/me", get(me))
}

/// The ways to sign in here (email and password first, then each configured identity provider),
/// who may register, and whether the first-run setup is still open.
#[utoipa::path(get, path = "/v1/auth/providers", tag = "auth", responses((status = 200, body = ProviderList)))]
pub async fn providers(State(state): State<AppState>) -> ApiResult<Json<ProviderList>> {
    Ok(Json(ProviderList {
        data: sign_in_methods(&state),
        registration: state.settings.registration,
        setup_required: !users::any_exist(&state.db).await?,
    }))
}

/// Email and password first, then every configured identity provider.
pub fn sign_in_methods(state: &AppState) -> Vec<ProviderInfo> {
    let password = ProviderInfo {
        id: "password".into(),
        name: "Email and password".into(),
    };
    std::iter::once(password)
        .chain(state.providers.iter().map(|p| p.info()))
        .collect()
}

/// Starts the OAuth flow: 302 to the provider with PKCE (S256) and `state`.
#[utoipa::path(get, path = "/v1/auth/{provider}/start", tag = "auth",
    params(("provider" = String, Path), ("redirect_to" = Option<String>, Query), ("cli_callback" = Option<String>, Query), ("state" = Option<String>, Query)),
    responses((status = 302, description = "redirect to the identity provider"), (status = 404, description = "provider not configured")))]
pub async fn start(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    Path(provider): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let dest = oauth::parse_destination(
        q.get("redirect_to").map(String::as_str),
        q.get("cli_callback").map(String::as_str),
        q.get("state").map(String::as_str),
    )?;
    if provider == "password" {
        return Ok(redirect(&password_page(&dest), None));
    }
    let provider = state
        .provider(&provider)
        .ok_or_else(|| AppError::not_found("identity provider"))?;
    let verifier = oauth::new_verifier();
    let nonce = random_token("", 32);
    let starter = oauth::Starter {
        client_ip: state.client_ip(peer, &headers),
        client_salt: &state.client_salt,
        browser_nonce: &nonce,
    };
    let our_state = oauth::save_state(&state.db, provider.id, &verifier, &dest, &starter).await?;
    let url = provider.authorize_url(&redirect_uri(&state, provider.id), &our_state, &verifier)?;
    // Binds the flow to this browser: the callback must bring the same cookie back (login CSRF).
    let cookie = format!(
        "{OAUTH_COOKIE}={nonce}; Path=/v1/auth; HttpOnly; SameSite=Lax; Max-Age=600{}",
        secure_attr(&state)
    );
    Ok(redirect(&url, Some(cookie)))
}

/// The dashboard's sign-in page, carrying the destination (the CLI's loopback URL and state).
fn password_page(dest: &Destination) -> String {
    let mut url = url::form_urlencoded::Serializer::new(String::new());
    match dest {
        Destination::Dashboard { redirect_to } => {
            url.append_pair("next", redirect_to);
        }
        Destination::Cli { callback, state } => {
            url.append_pair("cli_callback", callback);
            if let Some(s) = state {
                url.append_pair("state", s);
            }
        }
    }
    format!("/login?{}", url.finish())
}

/// The provider's redirect back: exchanges the code, signs the user in, and hands the session to
/// the dashboard (HttpOnly cookie) or the CLI (its loopback listener).
#[utoipa::path(get, path = "/v1/auth/{provider}/callback", tag = "auth",
    params(("provider" = String, Path), ("code" = String, Query), ("state" = String, Query)),
    responses((status = 302, description = "to the dashboard or the CLI's loopback URL"), (status = 401, description = "bad state or code"),
        (status = 403, description = "`setup_required` before the first-run setup; `registration_closed` (under `invite`, an address without a pending invite); `forbidden` when an existing account's address is not vouched for by the provider or not verified; a page saying why when the client asks for HTML")))]
pub async fn callback(
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(provider): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let provider = state
        .provider(&provider)
        .ok_or_else(|| AppError::not_found("identity provider"))?;
    let our_state = q
        .get("state")
        .ok_or_else(|| AppError::unauthorized("missing state"))?;
    let nonce = CookieJar::from_headers(&headers)
        .get(OAUTH_COOKIE)
        .map(|c| c.value().to_owned());
    let (verifier, dest) =
        oauth::take_state(&state.db, provider.id, our_state, nonce.as_deref()).await?;
    if let Some(err) = q.get("error") {
        return Err(ApiError::from(AppError::unauthorized(format!(
            "sign-in was not completed: {err}"
        ))));
    }
    let code = q
        .get("code")
        .ok_or_else(|| AppError::unauthorized("missing code"))?;
    let who = provider
        .identify(
            &state.http,
            &redirect_uri(&state, provider.id),
            code,
            &verifier,
        )
        .await?;
    let user =
        match users::upsert_identity(&state.db, provider.id, &who, state.settings.registration)
            .await
        {
            Ok(user) => user,
            // A person in a browser gets a page that says why; other clients the problem+json.
            Err(AppError::Client {
                kind: Refusal::Forbidden,
                detail,
                ..
            }) if wants_html(&headers) => {
                return Ok(refusal_page(&detail));
            }
            Err(e) => return Err(ApiError::from(e)),
        };
    let token = sessions::create(&state.db, &user).await?;
    Ok(match dest {
        Destination::Dashboard { redirect_to } => {
            let cookie = session_cookie(&state, &token, SESSION_DAYS * 86_400);
            redirect(&format!("{}{redirect_to}", state.public_url), Some(cookie))
        }
        Destination::Cli { callback, state } => {
            redirect(&cli_redirect(&callback, &token, state.as_deref())?, None)
        }
    })
}

/// The CLI's loopback URL with the session token and the CLI's own state.
pub fn cli_redirect(callback: &str, token: &str, cli_state: Option<&str>) -> ApiResult<String> {
    let mut url = url::Url::parse(callback).map_err(|e| AppError::Internal(e.into()))?;
    url.query_pairs_mut().append_pair("token", token);
    if let Some(s) = cli_state {
        url.query_pairs_mut().append_pair("state", s);
    }
    Ok(url.into())
}

fn wants_html(headers: &HeaderMap) -> bool {
    headers
        .get(axum::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/html"))
}

fn refusal_page(reason: &str) -> Response {
    let body = maud::html! {
        h1 { "Sign-in refused" }
        p { (reason) }
        p { a href="/login" { "Back to sign-in" } }
    };
    html_page(StatusCode::FORBIDDEN, layout("Sign-in refused", body, &[]))
}

/// Development and tests only (`SHIPMATE_DEV_LOGIN=1`): a session for any email, no provider.
#[utoipa::path(post, path = "/v1/auth/dev-login", tag = "auth",
    request_body = DevLogin,
    responses((status = 200, body = SignedIn), (status = 404, description = "dev login is off")))]
pub async fn dev_login(
    State(state): State<AppState>,
    JsonBody(input): JsonBody,
) -> ApiResult<Response> {
    // Off means the route does not exist, whatever the body.
    if !state.settings.dev_login {
        return Err(ApiError::from(AppError::not_found("route")));
    }
    let DevLogin { email, name } = input.parse()?;
    let user = users::upsert_by_email(&state.db, &email, name.as_deref()).await?;
    signed_in(&state, StatusCode::OK, user, None).await
}

/// Issues a session for the user and answers `{token, user}` with the session cookie set, so the
/// dashboard signs in through the same calls as any client. With a CLI destination, `redirect`
/// carries the loopback URL to hand the token to.
pub async fn signed_in(
    state: &AppState,
    status: StatusCode,
    user: User,
    cli: Option<Destination>,
) -> ApiResult<Response> {
    let token = sessions::create(&state.db, &user).await?;
    let redirect = match cli {
        Some(Destination::Cli { callback, state }) => {
            Some(cli_redirect(&callback, &token, state.as_deref())?)
        }
        _ => None,
    };
    let cookie = session_cookie(state, &token, SESSION_DAYS * 86_400);
    let mut res = (
        status,
        Json(SignedIn {
            token,
            user,
            redirect,
        }),
    )
        .into_response();
    if let Ok(v) = cookie.parse() {
        res.headers_mut().insert(SET_COOKIE, v);
    }
    Ok(res)
}

/// The signed-in user.
#[utoipa::path(get, path = "/v1/me", tag = "auth", security(("session" = [])), responses((status = 200, body = User), (status = 401, description = "no valid session")))]
pub async fn me(session: SessionUser) -> Json<User> {
    Json(session.user)
}

/// Revokes the session token (and clears the dashboard cookie).
#[utoipa::path(post, path = "/v1/auth/logout", tag = "auth", security(("session" = [])), responses((status = 200, body = LoggedOut)))]
pub async fn logout(State(state): State<AppState>, session: SessionUser) -> ApiResult<Response> {
    sessions::revoke(&state.db, &session.token).await?;
    let mut res = Json(LoggedOut { logged_out: true }).into_response();
    if session.via_cookie {
        if let Ok(v) = session_cookie(&state, "", 0).parse() {
            res.headers_mut().insert(SET_COOKIE, v);
        }
    }
    Ok(res)
}

fn redirect_uri(state: &AppState, provider: &str) -> String {
    format!("{}/v1/auth/{provider}/callback", state.public_url)
}

pub fn session_cookie(state: &AppState, token: &str, max_age: i64) -> String {
    format!(
        "{SESSION_COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{}",
        secure_attr(state)
    )
}

/// `Secure` would stop a plain-http local deployment from ever keeping a cookie.
fn secure_attr(state: &AppState) -> &'static str {
    if state.public_url.starts_with("https://") {
        "; Secure"
    } else {
        ""
    }
}

fn redirect(location: &str, cookie: Option<String>) -> Response {
    let mut res = StatusCode::FOUND.into_response();
    if let Ok(v) = location.parse() {
        res.headers_mut().insert(LOCATION, v);
    }
    if let Some(v) = cookie.and_then(|c| c.parse().ok()) {
        res.headers_mut().insert(SET_COOKIE, v);
    }
    res
}
