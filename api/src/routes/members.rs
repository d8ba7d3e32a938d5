//! Teams: a project's members and invites.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get, patch, post};
use axum::{Json, Router};
use shipmate_accounts::teams::invites::{self, Invite, InviteAccepted, InvitePreview, NewInvite};
use shipmate_accounts::teams::members::{self, Actor, Member, RoleChange};
use shipmate_accounts::teams::Role;
use shipmate_core::params::parse_id;
use shipmate_core::AppError;
use shipmate_outbound::notify;

use super::schemas::{Deleted, InviteList, MemberList};
use crate::extract::{Admin, Body, ProjectAccess, SessionUser, Viewer};
use crate::problem::{ApiError, ApiResult};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/projects/{project_id}/members", get(list))
        .route(
            "/v1/projects/{project_id}/members/{user_id}",
            patch(change_role).delete(remove),
        )
        .route(
            "/v1/projects/{project_id}/invites",
            post(invite).get(list_invites),
        )
        .route(
            "/v1/projects/{project_id}/invites/{invite_id}",
            delete(revoke_invite),
        )
        .route("/v1/invites/{token}", get(preview))
        .route("/v1/invites/{token}/accept", post(accept))
}

/// The project's members, owners first (viewers and up).
#[utoipa::path(get, path = "/v1/projects/{project_id}/members", tag = "teams", security(("session" = [])), params(("project_id" = String, Path, description = "the project")),
    responses((status = 200, body = shipmate_types::common::List<shipmate_types::teams::Member>), (status = 403, description = "not a member"), (status = 404, description = "no such project")))]
pub async fn list(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
) -> ApiResult<Json<MemberList>> {
    let data = members::list(&state.db, access.project.id).await?;
    Ok(Json(data.into()))
}

/// Changes a member's role (admins; only an owner touches owners; the last owner stays).
#[utoipa::path(patch, path = "/v1/projects/{project_id}/members/{user_id}", tag = "teams", security(("session" = [])),
    request_body = RoleChange,
    responses((status = 200, body = Member), (status = 403, description = "without the role needed"), (status = 404, description = "no such project or member"), (status = 409, description = "`last_owner`")))]
pub async fn change_role(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Path((_project_id, user_id)): Path<(String, String)>,
    Body(RoleChange { role }): Body<RoleChange>,
) -> ApiResult<Json<Member>> {
    let target = parse_id(&user_id, "member")?;
    let member =
        members::change_role(&state.db, access.project.id, &actor(&access), target, role).await?;
    Ok(Json(member))
}

/// Removes a member (admins), or leaves the project (anyone); the last owner stays.
#[utoipa::path(delete, path = "/v1/projects/{project_id}/members/{user_id}", tag = "teams", security(("session" = [])),
    responses((status = 200, body = Deleted), (status = 403, description = "without the role needed"), (status = 404, description = "no such project or member"), (status = 409, description = "`last_owner`")))]
pub async fn remove(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
    Path((_project_id, user_id)): Path<(String, String)>,
) -> ApiResult<Json<Deleted>> {
    let target = parse_id(&user_id, "member")?;
    members::remove(&state.db, access.project.id, &actor(&access), target).await?;
    Ok(Json(Deleted::new(target)))
}

fn actor<R>(access: &ProjectAccess<R>) -> Actor {
    Actor {
        user: access.session.user.id,
        role: access.role,
    }
}

/// Invites an email with a role (admins; only an owner invites an owner). The answer's `url` is
/// shown once; it is valid 7 days, once, for that email.
#[utoipa::path(post, path = "/v1/projects/{project_id}/invites", tag = "teams", security(("session" = [])), params(("project_id" = String, Path, description = "the project")),
    request_body = NewInvite,
    responses((status = 201, body = Invite), (status = 403, description = "without the role needed"), (status = 409, description = "already a member"), (status = 422, description = "invalid email or role")))]
pub async fn invite(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Body(NewInvite { email, role }): Body<NewInvite>,
) -> ApiResult<(StatusCode, Json<Invite>)> {
    if role == Role::Owner && access.role < Role::Owner {
        return Err(ApiError::from(AppError::forbidden(
            "only an owner can invite an owner",
        )));
    }
    let invite = invites::create(
        &state.db,
        access.project.id,
        &email,
        role,
        access.session.user.id,
        &state.public_url,
    )
    .await?;
    let deliveries = notify::invite(
        &state.db,
        state.mail(),
        access.project.id,
        &invite.email,
        role.as_str(),
        invite.url.as_deref().unwrap_or_default(),
    )
    .await?;
    state.deliver(&deliveries).await;
    Ok((StatusCode::CREATED, Json(invite)))
}

/// Pending invites (admins).
#[utoipa::path(get, path = "/v1/projects/{project_id}/invites", tag = "teams", security(("session" = [])), params(("project_id" = String, Path, description = "the project")),
    responses((status = 200, body = shipmate_types::common::List<shipmate_types::teams::Invite>), (status = 403, description = "without the role needed")))]
pub async fn list_invites(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
) -> ApiResult<Json<InviteList>> {
    let data = invites::list_pending(&state.db, access.project.id).await?;
    Ok(Json(data.into()))
}

/// Revokes a pending invite (admins).
#[utoipa::path(delete, path = "/v1/projects/{project_id}/invites/{invite_id}", tag = "teams", security(("session" = [])),
    responses((status = 200, body = Deleted), (status = 403, description = "without the role needed"), (status = 404, description = "no such invite")))]
pub async fn revoke_invite(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Path((_project_id, invite_id)): Path<(String, String)>,
) -> ApiResult<Json<Deleted>> {
    let id = parse_id(&invite_id, "invite")?;
    invites::delete(&state.db, access.project.id, id).await?;
    Ok(Json(Deleted::new(id)))
}

/// What an invite link offers, for the invite page (the token is the credential).
#[utoipa::path(get, path = "/v1/invites/{token}", tag = "teams",
    responses((status = 200, body = InvitePreview), (status = 404, description = "unknown invite"), (status = 410, description = "`invite_expired`: used or expired")))]
pub async fn preview(
    State(state): State<AppState>,
    Path(token): Path<String>,
) -> ApiResult<Json<InvitePreview>> {
    Ok(Json(invites::preview(&state.db, &token).await?))
}

/// Joins the project with the invite's role; the session's email must be the invited one.
#[utoipa::path(post, path = "/v1/invites/{token}/accept", tag = "teams", security(("session" = [])),
    responses((status = 200, body = InviteAccepted), (status = 403, description = "another email"), (status = 404, description = "unknown invite"), (status = 410, description = "`invite_expired`: used or expired")))]
pub async fn accept(
    State(state): State<AppState>,
    session: SessionUser,
    Path(token): Path<String>,
) -> ApiResult<Json<InviteAccepted>> {
    let mut tx = state.db.begin().await?;
    let (project_id, role) =
        invites::accept(&mut tx, &token, session.user.id, &session.user.email).await?;
    tx.commit().await?;
    Ok(Json(InviteAccepted { project_id, role }))
}
