//! Extractors that carry parsing and authentication: a handler's signature says who may call it.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, MatchedPath, Request};
use axum::http::request::Parts;
use axum::http::{header, Method, StatusCode};
use axum_extra::extract::CookieJar;
use std::marker::PhantomData;
use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, RawPathParams};
use shipmate_accounts::api_keys::KeyRoute;
use shipmate_accounts::auth::{identity, sessions, User};
use shipmate_accounts::projects::{self, Project};
use shipmate_accounts::teams::Role;
use shipmate_core::error::Refusal;
use shipmate_core::params::{parse_id, project_id_param};
use shipmate_core::AppError;
use shipmate_feedback::feedback::Participant;
use shipmate_types::input::{FromInput, Input};
use uuid::Uuid;

use crate::key_routes::key_route;
use crate::problem::ApiError;
use crate::state::AppState;

pub const SESSION_COOKIE: &str = "shipmate_session";

/// A JSON object body: 415 without a JSON content type, 413 over the body limit, 400 when it does
/// not parse, 422 when it is not an object.
pub struct JsonBody(pub Input);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
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
            return Err(ApiError::from(AppError::client(
                Refusal::UnsupportedMediaType,
                "unsupported_media_type",
                "send the body as JSON with Content-Type: application/json",
            )));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|r| {
            if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                AppError::payload_too_large("the request body is larger than the limit")
            } else {
                AppError::client(
                    Refusal::BadRequest,
                    "malformed_json",
                    "could not read the request body",
                )
            }
        })?;
        let value: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
            AppError::client(
                Refusal::BadRequest,
                "malformed_json",
                format!("the body is not valid JSON: {e}"),
            )
        })?;
        Ok(JsonBody(Input::new(value)?))
    }
}

/// A typed request body (see `shipmate_types`), read from a [`JsonBody`] with every problem listed
/// in one 422.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: FromInput> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let JsonBody(input) = JsonBody::from_request(req, state).await?;
        Ok(Body(input.parse()?))
    }
}

/// A typed body that may be left out: a request with no body at all (no content type, no length
/// or a length of 0, not chunked) reads as `T::default()`; any other is read as [`Body`] reads it.
pub struct OptionalBody<T>(pub T);

impl<S: Send + Sync, T: FromInput + Default> FromRequest<S> for OptionalBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let h = req.headers();
        let none = h.get(header::CONTENT_TYPE).is_none()
            && h.get(header::TRANSFER_ENCODING).is_none()
            && h.get(header::CONTENT_LENGTH).is_none_or(|v| v == "0");
        if none {
            return Ok(OptionalBody(T::default()));
        }
        let Body(t) = Body::from_request(req, state).await?;
        Ok(OptionalBody(t))
    }
}

/// The project whose key is in `X-Project-Key`. A scoped key is checked here against the route's
/// scope and its allowed origins, so handlers only ever see keys that may call them. Requests with
/// a key the public holds (the publishable key, a scoped key) carry their client's rate-limit
/// bucket, and their writes are limited here; the secret key is the customer's own server.
pub struct ProjectKey {
    pub project: Project,
    /// The client's address (IPv6 per /64) when the key is a public one.
    pub public_client: Option<IpAddr>,
}

impl FromRequestParts<AppState> for ProjectKey {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Some(key) = parts.headers.get("x-project-key") else {
            return on_behalf_of_member(parts, state).await;
        };
        let key = key
            .to_str()
            .map_err(|_| AppError::unauthorized("unknown API key"))?
            .trim();
        let (project, access) = state
            .resolve_key(key)
            .await?
            .ok_or_else(|| AppError::unauthorized("unknown or revoked API key"))?;
        crate::telemetry::record_project(project.id);
        let route = parts
            .extensions
            .get::<MatchedPath>()
            .map(|m| m.as_str())
            .unwrap_or_default();
        let origin = parts
            .headers
            .get(header::ORIGIN)
            .and_then(|v| v.to_str().ok());
        let call = format!("{} {route}", parts.method);
        access.check(key_route(parts.method.as_str(), route), &call, origin)?;
        let public_client = access.is_public().then(|| client_bucket(parts, state));
        if let Some(client) = public_client {
            if parts.method == Method::POST && WRITE_ROUTES.contains(&route) {
                state.limits.write(client, project.id).await?;
            }
        }
        Ok(ProjectKey {
            project,
            public_client,
        })
    }
}

/// Without a key, the dashboard calls key endpoints as a signed-in member, naming the project in
/// `X-Project-Id`: members and viewers never hold the secret key, yet work in the knowledge base.
/// Reads (searches included) need a viewer, writes a member.
async fn on_behalf_of_member(parts: &mut Parts, state: &AppState) -> Result<ProjectKey, ApiError> {
    let Some(id) = parts
        .headers
        .get("x-project-id")
        .and_then(|v| v.to_str().ok())
    else {
        return Err(ApiError::from(AppError::unauthorized(
            "this endpoint needs the project's API key in X-Project-Key, or X-Project-Id (the project's id) with a member's session",
        )));
    };
    let id = parse_id(id.trim(), "project")?;
    let session = SessionUser::from_request_parts(parts, state).await?;
    // Reads (a search is a POST, yet a read) need a viewer; writes a member.
    let route = parts
        .extensions
        .get::<MatchedPath>()
        .map(|m| m.as_str())
        .unwrap_or_default();
    let read = parts.method == Method::GET
        || matches!(key_route(parts.method.as_str(), route),
            KeyRoute::Needs(s) if s.as_str().ends_with(":read"));
    let needed = if read { Role::Viewer } else { Role::Member };
    let (project, _) = require(state, &session, id, needed).await?;
    Ok(ProjectKey {
        project,
        public_client: None,
    })
}

/// Key routes that create something: the per-client write limit applies to them.
const WRITE_ROUTES: &[&str] = &["/v1/feedback", "/v1/testimonials"];

/// The rate-limit bucket of the request's client (see `limits::bucket`).
pub fn client_bucket(parts: &Parts, state: &AppState) -> IpAddr {
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0)
        .unwrap_or_else(|| SocketAddr::from(([0, 0, 0, 0], 0)));
    crate::limits::bucket(state.client_ip(peer, &parts.headers))
}

/// The request's client bucket, for limits a handler checks once it knows what is written.
pub struct Client(pub IpAddr);

impl FromRequestParts<AppState> for Client {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        Ok(Client(client_bucket(parts, state)))
    }
}

/// Sign-in work (login, register, setup, resets, verification): counted against the client's
/// `SHIPMATE_RATE_AUTH_PER_MINUTE` before the body is read or any password is hashed.
pub struct AuthLimited;

impl FromRequestParts<AppState> for AuthLimited {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        state.limits.auth(client_bucket(parts, state)).await?;
        Ok(AuthLimited)
    }
}

/// A signed-in user, from `Authorization: Bearer st_...` or the dashboard's session cookie.
pub struct SessionUser {
    pub user: User,
    pub session_id: Uuid,
    /// The credential is a personal access token, not a sign-in.
    pub personal_token: bool,
    pub token: String,
    pub via_cookie: bool,
}

impl FromRequestParts<AppState> for SessionUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let (token, via_cookie) = match parts.headers.get(header::AUTHORIZATION) {
            Some(v) => {
                let v = v.to_str().unwrap_or_default();
                match v.split_once(' ') {
                    Some((scheme, t)) if scheme.eq_ignore_ascii_case("bearer") => {
                        (t.trim().to_owned(), false)
                    }
                    _ => {
                        return Err(ApiError::from(AppError::unauthorized(
                            "use Authorization: Bearer <session token>",
                        )))
                    }
                }
            }
            None => match CookieJar::from_headers(&parts.headers).get(SESSION_COOKIE) {
                Some(c) => (c.value().to_owned(), true),
                None => {
                    return Err(ApiError::from(AppError::unauthorized(
                        "sign in first: this endpoint needs a session token",
                    )))
                }
            },
        };
        if via_cookie && !matches!(parts.method, Method::GET | Method::HEAD | Method::OPTIONS) {
            check_same_origin(parts, state)?;
        }
        let live = sessions::user_for_token(&state.db, &token)
            .await?
            .ok_or_else(|| {
                AppError::unauthorized("the session token is unknown, expired or revoked")
            })?;
        Ok(SessionUser {
            user: live.user,
            session_id: live.session_id,
            personal_token: live.personal_token,
            token,
            via_cookie,
        })
    }
}

/// A signed-in user, or nobody (public pages that show more to members).
pub struct MaybeUser(pub Option<User>);

impl FromRequestParts<AppState> for MaybeUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        match SessionUser::from_request_parts(parts, state).await {
            Ok(s) => Ok(MaybeUser(Some(s.user))),
            Err(e) if e.refusal() == Some(Refusal::Unauthorized) => Ok(MaybeUser(None)),
            Err(e) => Err(e),
        }
    }
}

/// Who votes, comments or submits on a board: a dashboard session, or an end-user session (`eu_`,
/// from `POST /v1/auth/identify`) that counts in its own project only.
pub struct Actor {
    pub who: Participant,
    /// How comments sign: the account's name, else its address's local part.
    pub name: String,
    pub email: Option<String>,
    /// An end user's identify-token attributes (segment boards match them).
    pub attributes: Option<serde_json::Map<String, serde_json::Value>>,
}

impl FromRequestParts<AppState> for Actor {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let end_user_token = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, t)| t.trim())
            .filter(|t| t.starts_with(identity::SESSION_PREFIX));
        if let Some(token) = end_user_token {
            let user = identity::session(&state.db, token).await?.ok_or_else(|| {
                AppError::unauthorized("the end-user session is unknown or expired")
            })?;
            return Ok(Actor {
                who: Participant::EndUser {
                    id: user.id,
                    project_id: user.project_id,
                },
                name: user.name,
                email: user.email,
                attributes: Some(user.attributes),
            });
        }
        let session = SessionUser::from_request_parts(parts, state).await?;
        let user = session.user;
        let name = match user.name.trim() {
            "" => user.email.split('@').next().unwrap_or_default().to_owned(),
            name => name.to_owned(),
        };
        Ok(Actor {
            who: Participant::User(user.id),
            name,
            email: Some(user.email),
            attributes: None,
        })
    }
}

/// An actor, or nobody (the public board takes anonymous submissions).
pub struct MaybeActor(pub Option<Actor>);

impl FromRequestParts<AppState> for MaybeActor {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let present = parts.headers.contains_key(header::AUTHORIZATION)
            || CookieJar::from_headers(&parts.headers)
                .get(SESSION_COOKIE)
                .is_some();
        if !present {
            return Ok(MaybeActor(None));
        }
        match Actor::from_request_parts(parts, state).await {
            Ok(a) => Ok(MaybeActor(Some(a))),
            // A stale dashboard cookie on the public board is no reason to refuse a submission.
            Err(e)
                if e.refusal() == Some(Refusal::Unauthorized)
                    && !parts.headers.contains_key(header::AUTHORIZATION) =>
            {
                Ok(MaybeActor(None))
            }
            Err(e) => Err(e),
        }
    }
}

/// CSRF defence for cookie-authenticated writes: the browser must say the request comes from our
/// own origin (`Origin`, or `Referer` when a browser omits it). Bearer-token calls need no check.
fn check_same_origin(parts: &Parts, state: &AppState) -> Result<(), ApiError> {
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
        Err(ApiError::from(AppError::client(
            Refusal::Forbidden,
            "forbidden",
            "cross-site request refused",
        )))
    }
}

fn format_host(host: &str, port: Option<u16>) -> String {
    match port {
        Some(p) => format!("{host}:{p}"),
        None => host.to_owned(),
    }
}

/// The least role an endpoint needs, as a type: `ProjectAccess<Admin>` in a handler's signature
/// says who may call it.
pub trait Needs {
    const ROLE: Role;
}

pub struct Viewer;
pub struct Member;
pub struct Admin;
pub struct Owner;

impl Needs for Viewer {
    const ROLE: Role = Role::Viewer;
}
impl Needs for Member {
    const ROLE: Role = Role::Member;
}
impl Needs for Admin {
    const ROLE: Role = Role::Admin;
}
impl Needs for Owner {
    const ROLE: Role = Role::Owner;
}

/// A signed-in member of the project named by the route's `{project_id}` (or, on the dashboard's
/// query-style endpoints, the `project_id` query parameter) with at least the role `R`:
/// 401 without a session, 404 for an unknown project, 403 for a non-member or a lower role.
pub struct ProjectAccess<R> {
    pub project: Project,
    pub role: Role,
    pub session: SessionUser,
    needs: PhantomData<R>,
}

impl<R: Needs + Send + Sync> FromRequestParts<AppState> for ProjectAccess<R> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let session = SessionUser::from_request_parts(parts, state).await?;
        let from_path = RawPathParams::from_request_parts(parts, state)
            .await
            .ok()
            .and_then(|p| {
                p.iter()
                    .find(|(k, _)| *k == "project_id")
                    .map(|(_, v)| v.to_owned())
            });
        let id = match from_path {
            Some(v) => parse_id(&v, "project")?,
            None => project_id_param(query_value(parts, "project_id").as_deref())?,
        };
        let (project, role) = require(state, &session, id, R::ROLE).await?;
        Ok(ProjectAccess {
            project,
            role,
            session,
            needs: PhantomData,
        })
    }
}

/// The one role check behind `ProjectAccess`, for routes that find the project through another
/// resource (a feedback entry's id).
pub async fn require(
    state: &AppState,
    session: &SessionUser,
    project: Uuid,
    needed: Role,
) -> Result<(Project, Role), ApiError> {
    let found = projects::access(&state.db, session.user.id, project, needed).await?;
    crate::telemetry::record_project(found.0.id);
    Ok(found)
}

fn query_value(parts: &Parts, name: &str) -> Option<String> {
    url::form_urlencoded::parse(parts.uri.query().unwrap_or_default().as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// A signed-in instance admin: 403 `forbidden` for anyone else.
pub struct InstanceAdmin(pub SessionUser);

impl FromRequestParts<AppState> for InstanceAdmin {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let session = SessionUser::from_request_parts(parts, state).await?;
        if !session.user.is_admin {
            return Err(ApiError::from(AppError::forbidden(
                "this needs an instance admin",
            )));
        }
        Ok(InstanceAdmin(session))
    }
}
