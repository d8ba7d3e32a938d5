//! End-user identity: the project's identify secret (admins), and the exchange of a customer's
//! signed JWT for an end-user session (either key of the project).

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use shipmate_accounts::auth::identity::{
    self, EndUserInfo, Identified, IdentifyRequest, IdentifySecret,
};

use crate::extract::{Admin, Body, ProjectAccess, ProjectKey};
use crate::problem::ApiResult;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/projects/{project_id}/identify-secret/rotate",
            post(rotate_secret),
        )
        .route("/v1/auth/identify", post(identify))
}

/// A new identify secret, shown once: the customer's backend signs end users' JWTs with it
/// (HS256). Tokens signed with the previous secret stop working at once, and every end-user
/// (`eu_`) session of the project ends.
#[utoipa::path(post, path = "/v1/projects/{project_id}/identify-secret/rotate", tag = "identity", security(("session" = [])),
    params(("project_id" = String, Path, description = "the project")),
    responses((status = 200, body = IdentifySecret), (status = 403, description = "not an admin"), (status = 404, description = "no such project")))]
pub async fn rotate_secret(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
) -> ApiResult<Json<IdentifySecret>> {
    Ok(Json(IdentifySecret {
        identify_secret: identity::rotate_secret(&state.db, access.project.id).await?,
    }))
}

/// Exchanges a JWT signed with the project's identify secret (claims `sub`, `name`, `email`,
/// `exp` at most 24 hours ahead; `company` `{id, name, mrr?, plan?}` and flat `attributes`) for an `eu_` session valid 30 days, which votes, comments and
/// submits feedback in this project only. Any key of the project may call it.
#[utoipa::path(post, path = "/v1/auth/identify", tag = "identity", security(("api_key" = [])),
    request_body = IdentifyRequest,
    responses((status = 200, body = Identified), (status = 401, description = "`invalid_identity`: bad signature, expired, malformed, exp too far ahead, or no secret yet")))]
pub async fn identify(
    State(state): State<AppState>,
    ProjectKey { project, .. }: ProjectKey,
    Body(IdentifyRequest { token }): Body<IdentifyRequest>,
) -> ApiResult<Json<Identified>> {
    let (token, user, change) = identity::identify(&state.db, project.id, &token).await?;
    if let Some(c) = change {
        shipmate_feedback::feedback::value::refresh_for_customer(
            &state.db,
            c.end_user_id,
            c.company_id,
        )
        .await?;
    }
    Ok(Json(Identified {
        token,
        user: EndUserInfo {
            id: user.id,
            name: user.name,
        },
    }))
}
