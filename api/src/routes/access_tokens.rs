//! Personal access tokens: made and revoked from a signed-in session, for scripts and the CLI.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get};
use axum::{Json, Router};
use shipmate_accounts::auth::access_tokens::{
    self, AccessToken, AccessTokenCreated, NewAccessToken,
};
use shipmate_accounts::auth::sessions;
use shipmate_core::params::parse_id;
use shipmate_core::AppError;
use shipmate_types::common::List;

use super::schemas::Deleted;
use crate::extract::{Body, SessionUser};
use crate::problem::{ApiError, ApiResult};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/auth/tokens", get(list).post(create))
        .route("/v1/auth/tokens/{token_id}", delete(revoke))
}

/// Makes a personal access token (`st_...`, shown once) that acts as the signed-in user until it
/// expires or is revoked. A token cannot make further tokens.
#[utoipa::path(post, path = "/v1/auth/tokens", tag = "auth", security(("session" = [])),
    request_body = NewAccessToken,
    responses((status = 201, body = AccessTokenCreated), (status = 403, description = "`forbidden`: called with a personal access token"), (status = 422, description = "invalid fields")))]
pub async fn create(
    State(state): State<AppState>,
    session: SessionUser,
    Body(new): Body<NewAccessToken>,
) -> ApiResult<(StatusCode, Json<AccessTokenCreated>)> {
    if session.personal_token {
        return Err(ApiError::from(AppError::forbidden(
            "a personal access token cannot make tokens; sign in to the dashboard to make one",
        )));
    }
    let token = access_tokens::create(&state.db, session.user.id, new).await?;
    Ok((StatusCode::CREATED, Json(token)))
}

/// The user's live personal access tokens, never the tokens themselves.
#[utoipa::path(get, path = "/v1/auth/tokens", tag = "auth", security(("session" = [])),
    responses((status = 200, body = shipmate_types::common::List<shipmate_types::accounts::AccessToken>)))]
pub async fn list(
    State(state): State<AppState>,
    session: SessionUser,
) -> ApiResult<Json<List<AccessToken>>> {
    Ok(Json(
        access_tokens::list(&state.db, session.user.id)
            .await?
            .into(),
    ))
}

/// Revokes a token: it answers 401 from then on.
#[utoipa::path(delete, path = "/v1/auth/tokens/{token_id}", tag = "auth", security(("session" = [])),
    params(("token_id" = String, Path)),
    responses((status = 200, body = Deleted), (status = 404, description = "no such live token of yours")))]
pub async fn revoke(
    State(state): State<AppState>,
    session: SessionUser,
    Path(id): Path<String>,
) -> ApiResult<Json<Deleted>> {
    let id = parse_id(&id, "token")?;
    sessions::revoke_by_id(&state.db, session.user.id, id, true).await?;
    Ok(Json(Deleted::new(id)))
}
