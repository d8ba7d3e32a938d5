//! Extractors that carry parsing and authentication: a handler's signature says who may call it.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, MatchedPath, Request};
use axum::http::request::Parts;
use axum::http::{header, Method, StatusCode};
use axum_extra::extract::CookieJar;
use shipmate_shared::auth::{sessions, User};
use shipmate_shared::projects::Project;
use shipmate_shared::validate::Input;
use shipmate_shared::AppError;

use crate::state::AppState;

pub const SESSION_COOKIE: &str = "shipmate_session";

/// A JSON object body: 415 without a JSON content type, 413 over the body limit, 400 when it does
/// not parse, 422 when it is not an object.
pub struct JsonBody(pub Input);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, AppError> {
        let is_json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(';').next())
            .map(|m| {
                let m = m.trim().to_ascii_lowercase();
                m == "application/json" || (m.starts_with("application/") && m.ends_with("+json"))
            })
            .unwrap_or(false);
        if !is_json {
            return Err(AppError::client(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "send the body as JSON with Content-Type: application/json",
            ));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|r| {
            if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                AppError::payload_too_large("the request body is larger than the limit")
            } else {
                AppError::client(
                    StatusCode::BAD_REQUEST,
                    "malformed_json",
                    "could not read the request body",
                )
            }
        })?;
        let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
            AppError::client(
                StatusCode::BAD_REQUEST,
                "malformed_json",
                format!("the body is not valid JSON: {e}"),
            )
        })?;
        Ok(JsonBody(Input::new(value)?))
    }
}

/// The project whose key is in `X-Project-Key`. A scoped key is checked here against the route's
/// scope and its allowed origins, so handlers only ever see keys that may call them.
pub struct ProjectKey(pub Project);

impl FromRequestParts<AppState> for ProjectKey {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        let Some(key) = parts.headers.get("x-project-key") else {
            return Err(AppError::unauthorized(
                "this endpoint needs the project's API key in X-Project-Key",
            ));
        };
        let key = key
            .to_str()
            .map_err(|_| AppError::unauthorized("unknown API key"))?
            .trim();
        let (project, access) = state
            .resolve_key(key)
            .await?
            .ok_or_else(|| AppError::unauthorized("unknown or revoked API key"))?;
        let route = parts
            .extensions
            .get::<MatchedPath>()
            .map(|m| m.as_str())
            .unwrap_or_default();
        let origin = parts
            .headers
            .get(header::ORIGIN)
            .and_then(|v| v.to_str().ok());
        access.check(parts.method.as_str(), route, origin)?;
        Ok(ProjectKey(project))
    }
}

/// A signed-in user, from `Authorization: Bearer st_...` or the dashboard's session cookie.
pub struct SessionUser {
    pub user: User,
    pub token: String,
    pub via_cookie: bool,
}

impl FromRequestParts<AppState> for SessionUser {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        let (token, via_cookie) = match parts.headers.get(header::AUTHORIZATION) {
            Some(v) => {
                let v = v.to_str().unwrap_or_default();
                match v.split_once(' ') {
                    Some((scheme, t)) if scheme.eq_ignore_ascii_case("bearer") => {
                        (t.trim().to_owned(), false)
                    }
                    _ => {
                        return Err(AppError::unauthorized(
                            "use Authorization: Bearer <session token>",
                        ))
                    }
                }
            }
            None => match CookieJar::from_headers(&parts.headers).get(SESSION_COOKIE) {
                Some(c) => (c.value().to_owned(), true),
                None => {
                    return Err(AppError::unauthorized(
                        "sign in first: this endpoint needs a session token",
                    ))
                }
            },
        };
        if via_cookie && !matches!(parts.method, Method::GET | Method::HEAD | Method::OPTIONS) {
            check_same_origin(parts, state)?;
        }
        let user = sessions::user_for_token(&state.db, &token)
            .await?
            .ok_or_else(|| {
                AppError::unauthorized("the session token is unknown, expired or revoked")
            })?;
        Ok(SessionUser {
            user,
            token,
            via_cookie,
        })
    }
}

/// A signed-in user, or nobody (public pages that show more to members).
pub struct MaybeUser(pub Option<User>);

impl FromRequestParts<AppState> for MaybeUser {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        match SessionUser::from_request_parts(parts, state).await {
            Ok(s) => Ok(MaybeUser(Some(s.user))),
            Err(AppError::Client {
                status: StatusCode::UNAUTHORIZED,
                ..
            }) => Ok(MaybeUser(None)),
            Err(e) => Err(e),
        }
    }
}

/// CSRF defence for cookie-authenticated writes: the browser must say the request comes from our
/// own origin (`Origin`, or `Referer` when a browser omits it). Bearer-token calls need no check.
fn check_same_origin(parts: &Parts, state: &AppState) -> Result<(), AppError> {
    let ours = url::Url::parse(&state.public_url).ok().map(|u| u.origin());
    let host = parts
        .headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok());
    let claimed = parts
        .headers
        .get(header::ORIGIN)
        .or_else(|| parts.headers.get(header::REFERER))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| url::Url::parse(v).ok());
    let ok = claimed.is_some_and(|u| {
        Some(u.origin()) == ours
            || host.is_some_and(|h| {
                u.host_str().map(|uh| format_host(uh, u.port())) == Some(h.to_owned())
            })
    });
    if ok {
        Ok(())
    } else {
        Err(AppError::client(
            StatusCode::FORBIDDEN,
            "forbidden",
            "cross-site request refused",
        ))
    }
}

fn format_host(host: &str, port: Option<u16>) -> String {
    match port {
        Some(p) => format!("{host}:{p}"),
        None => host.to_owned(),
    }
}
