//! Sign-in: identity providers (OAuth 2.0 + PKCE), the development login, sessions.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::header::{LOCATION, SET_COOKIE};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use shipmate_shared::auth::oauth::{self, Destination, ProviderInfo};
use shipmate_shared::auth::{sessions, users, User, SESSION_DAYS};
use shipmate_shared::{AppError, AppResult};

use super::schemas::ProviderList;
use crate::extract::{JsonBody, SessionUser, SESSION_COOKIE};
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

/// Identity providers configured on this deployment.
#[utoipa::path(get, path = "/v1/auth/providers", tag = "auth", responses((status = 200, body = ProviderList)))]
pub async fn providers(State(state): State<AppState>) -> Json<serde_json::Value> {
    let data: Vec<ProviderInfo> = state.providers.iter().map(|p| p.info()).collect();
    Json(json!({ "data": data }))
}

/// Starts the OAuth flow: 302 to the provider with PKCE (S256) and `state`.
#[utoipa::path(get, path = "/v1/auth/{provider}/start", tag = "auth",
    params(("provider" = String, Path), ("redirect_to" = Option<String>, Query), ("cli_callback" = Option<String>, Query), ("state" = Option<String>, Query)),
    responses((status = 302, description = "redirect to the identity provider"), (status = 404, description = "provider not configured")))]
pub async fn start(
    State(state): State<AppState>,
    Path(provider): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> AppResult<Response> {
    let provider = state
        .provider(&provider)
        .ok_or_else(|| AppError::not_found("identity provider"))?;
    let dest = oauth::parse_destination(
        q.get("redirect_to").map(String::as_str),
        q.get("cli_callback").map(String::as_str),
        q.get("state").map(String::as_str),
    )?;
    let verifier = oauth::new_verifier();
    let our_state = oauth::save_state(&state.db, provider.id, &verifier, &dest).await?;
    let url = provider.authorize_url(&redirect_uri(&state, provider.id), &our_state, &verifier)?;
    Ok(redirect(&url, None))
}

/// The provider's redirect back: exchanges the code, signs the user in, and hands the session to
/// the dashboard (HttpOnly cookie) or the CLI (its loopback listener).
#[utoipa::path(get, path = "/v1/auth/{provider}/callback", tag = "auth",
    params(("provider" = String, Path), ("code" = String, Query), ("state" = String, Query)),
    responses((status = 302, description = "to the dashboard or the CLI's loopback URL"), (status = 401, description = "bad state or code")))]
pub async fn callback(
    State(state): State<AppState>,
    Path(provider): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> AppResult<Response> {
    let provider = state
        .provider(&provider)
        .ok_or_else(|| AppError::not_found("identity provider"))?;
    let our_state = q
        .get("state")
        .ok_or_else(|| AppError::unauthorized("missing state"))?;
    let (verifier, dest) = oauth::take_state(&state.db, provider.id, our_state).await?;
    if let Some(err) = q.get("error") {
        return Err(AppError::unauthorized(format!(
            "sign-in was not completed: {err}"
        )));
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
    let user = users::upsert_identity(
        &state.db,
        provider.id,
        &who.subject,
        &who.email,
        who.name.as_deref(),
    )
    .await?;
    let token = sessions::create(&state.db, &user).await?;
    Ok(match dest {
        Destination::Dashboard { redirect_to } => {
            let cookie = session_cookie(&state, &token, SESSION_DAYS * 86_400);
            redirect(&format!("{}{redirect_to}", state.public_url), Some(cookie))
        }
        Destination::Cli {
            callback,
            state: cli_state,
        } => {
            let mut url = url::Url::parse(&callback).map_err(|e| AppError::Internal(e.into()))?;
            url.query_pairs_mut().append_pair("token", &token);
            if let Some(s) = cli_state {
                url.query_pairs_mut().append_pair("state", &s);
            }
            redirect(url.as_str(), None)
        }
    })
}

/// Development and tests only (`SHIPMATE_DEV_LOGIN=1`): a session for any email, no provider.
#[utoipa::path(post, path = "/v1/auth/dev-login", tag = "auth",
    request_body(content = serde_json::Value, description = "`{email, name?}`"),
    responses((status = 200, description = "`{token, user}`"), (status = 404, description = "dev login is off")))]
pub async fn dev_login(
    State(state): State<AppState>,
    JsonBody(mut input): JsonBody,
) -> AppResult<Response> {
    if !state.settings.dev_login {
        return Err(AppError::not_found("route"));
    }
    let email = input.email("email");
    let name = input.opt_string("name", 200);
    input.finish()?;
    let user =
        users::upsert_by_email(&state.db, &email.unwrap_or_default(), name.as_deref()).await?;
    let token = sessions::create(&state.db, &user).await?;
    // The dashboard signs in with this too, so the answer also sets the session cookie.
    let mut res = Json(json!({ "token": token, "user": user })).into_response();
    if let Ok(v) = session_cookie(&state, &token, SESSION_DAYS * 86_400).parse() {
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
#[utoipa::path(post, path = "/v1/auth/logout", tag = "auth", security(("session" = [])), responses((status = 200, description = "`{logged_out: true}`")))]
pub async fn logout(State(state): State<AppState>, session: SessionUser) -> AppResult<Response> {
    sessions::revoke(&state.db, &session.token).await?;
    let mut res = Json(json!({ "logged_out": true })).into_response();
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

fn session_cookie(state: &AppState, token: &str, max_age: i64) -> String {
    // `Secure` would stop a plain-http local deployment from ever keeping the cookie.
    let secure = if state.public_url.starts_with("https://") {
        "; Secure"
    } else {
        ""
    };
    format!("{SESSION_COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}")
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
