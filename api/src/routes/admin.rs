//! The instance admin's endpoints: accounts, reset links, the instance's sign-in settings.

use axum::extract::{Path, State};
use axum::routing::{get, patch, post};
use axum::{Json, Router};
use shipmate_accounts::auth::admin::{self, Account, AccountChanges};
use shipmate_accounts::auth::resets;
use shipmate_core::params::parse_id;
use shipmate_core::AppError;
use shipmate_types::accounts::InstanceSettings;

use super::schemas::{AccountList, Link};
use crate::extract::{Body, InstanceAdmin};
use crate::problem::{ApiError, ApiResult};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/admin/users", get(list))
        .route("/v1/admin/users/{user_id}", patch(update))
        .route("/v1/admin/users/{user_id}/password-reset", post(reset_link))
        .route("/v1/admin/settings", get(settings))
}

/// Every account of the instance, oldest first.
#[utoipa::path(get, path = "/v1/admin/users", tag = "admin", security(("session" = [])),
    responses((status = 200, body = shipmate_types::common::List<shipmate_types::accounts::Account>), (status = 403, description = "not an instance admin")))]
pub async fn list(State(state): State<AppState>, _: InstanceAdmin) -> ApiResult<Json<AccountList>> {
    Ok(Json(admin::list(&state.db).await?.into()))
}

/// Makes an account admin or not, disables or enables it (disabling ends its sessions).
#[utoipa::path(patch, path = "/v1/admin/users/{user_id}", tag = "admin", security(("session" = [])),
    request_body = AccountChanges,
    responses((status = 200, body = Account), (status = 403, description = "not an instance admin"), (status = 404, description = "no such user"), (status = 409, description = "`last_admin`")))]
pub async fn update(
    State(state): State<AppState>,
    _: InstanceAdmin,
    Path(id): Path<String>,
    Body(changes): Body<AccountChanges>,
) -> ApiResult<Json<Account>> {
    let id = parse_id(&id, "user")?;
    Ok(Json(
        admin::update(&state.db, id, changes.is_admin, changes.disabled).await?,
    ))
}

/// A one-hour, single-use reset link for the user, to hand over where email is not configured; it
/// ends the user's other unused links.
#[utoipa::path(post, path = "/v1/admin/users/{user_id}/password-reset", tag = "admin", security(("session" = [])),
    responses((status = 200, body = Link), (status = 403, description = "not an instance admin"), (status = 404, description = "no such user")))]
pub async fn reset_link(
    State(state): State<AppState>,
    _: InstanceAdmin,
    Path(id): Path<String>,
) -> ApiResult<Json<Link>> {
    let id = parse_id(&id, "user")?;
    if !admin::exists(&state.db, id).await? {
        return Err(ApiError::from(AppError::not_found("user")));
    }
    let url = resets::create_link(&state.db, id, &state.public_url, resets::Via::Admin).await?;
    Ok(Json(Link { url }))
}

/// The instance's sign-in settings, as configured.
#[utoipa::path(get, path = "/v1/admin/settings", tag = "admin", security(("session" = [])),
    responses((status = 200, body = InstanceSettings), (status = 403, description = "not an instance admin")))]
pub async fn settings(State(state): State<AppState>, _: InstanceAdmin) -> Json<InstanceSettings> {
    Json(InstanceSettings {
        registration: state.settings.registration,
        email_configured: state.settings.common.outbound.email_configured(),
        providers: super::auth::sign_in_methods(&state),
    })
}
