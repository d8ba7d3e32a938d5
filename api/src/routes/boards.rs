//! Boards: admins make, change and delete them; the team reads them all; the public (and end users
//! by their segment) list the ones they may see, for the board switcher.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, patch, post};
use axum::{Json, Router};
use shipmate_accounts::projects;
use shipmate_core::params::{parse_id, query_id};
use shipmate_feedback::feedback::boards::{self, Board, BoardChanges, NewBoard};
use shipmate_types::common::List;

use super::schemas::Deleted;
use crate::audience;
use crate::extract::{Admin, Body, MaybeActor, ProjectAccess, Viewer};
use crate::problem::ApiResult;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/projects/{project_id}/boards",
            post(create_board).get(list_boards),
        )
        .route(
            "/v1/projects/{project_id}/boards/{board_id}",
            patch(update_board).delete(delete_board),
        )
        .route("/v1/feedback/by-project/{slug}/boards", get(visible_boards))
}

/// Adds a board: `public`, `private` (the team only) or `segment` (end users whose identify
/// token's attributes match `segment`, and the team).
#[utoipa::path(post, path = "/v1/projects/{project_id}/boards", tag = "feedback", security(("session" = [])),
    params(("project_id" = String, Path)),
    request_body = NewBoard,
    responses((status = 201, body = Board), (status = 403, description = "without the role needed (admins)"),
        (status = 409, description = "`board_exists` (the slug is taken) or `too_many_boards` (50)"),
        (status = 422, description = "invalid fields (a `segment` board names its segment)")))]
pub async fn create_board(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Body(new): Body<NewBoard>,
) -> ApiResult<(StatusCode, Json<Board>)> {
    let board = boards::create(&state.db, access.project.id, new).await?;
    Ok((StatusCode::CREATED, Json(board)))
}

/// Every board of the project, the default board first (the team).
#[utoipa::path(get, path = "/v1/projects/{project_id}/boards", tag = "feedback", security(("session" = [])),
    params(("project_id" = String, Path)),
    responses((status = 200, body = List<Board>), (status = 403, description = "without the role needed")))]
pub async fn list_boards(
    State(state): State<AppState>,
    access: ProjectAccess<Viewer>,
) -> ApiResult<Json<List<Board>>> {
    Ok(Json(
        boards::list(&state.db, access.project.id).await?.into(),
    ))
}

/// Renames a board, changes its slug, its visibility or its segment.
#[utoipa::path(patch, path = "/v1/projects/{project_id}/boards/{board_id}", tag = "feedback", security(("session" = [])),
    params(("project_id" = String, Path), ("board_id" = String, Path)),
    request_body = BoardChanges,
    responses((status = 200, body = Board), (status = 403, description = "without the role needed (admins)"),
        (status = 404, description = "no such board in this project"), (status = 409, description = "`board_exists`"),
        (status = 422, description = "invalid fields")))]
pub async fn update_board(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Path((_project_id, board_id)): Path<(String, String)>,
    Body(changes): Body<BoardChanges>,
) -> ApiResult<Json<Board>> {
    let id = parse_id(&board_id, "board")?;
    Ok(Json(
        boards::update(&state.db, access.project.id, id, changes).await?,
    ))
}

/// Deletes a board. One with entries needs `move_to` (another board of the project, which takes
/// them); the default board stays.
#[utoipa::path(delete, path = "/v1/projects/{project_id}/boards/{board_id}", tag = "feedback", security(("session" = [])),
    params(("project_id" = String, Path), ("board_id" = String, Path),
        ("move_to" = Option<String>, Query, description = "the board that takes this board's entries")),
    responses((status = 200, body = Deleted), (status = 403, description = "without the role needed (admins)"),
        (status = 404, description = "no such board in this project"),
        (status = 409, description = "`board_not_empty` (entries and no `move_to`) or `default_board`"),
        (status = 422, description = "`move_to` is no other board of the project")))]
pub async fn delete_board(
    State(state): State<AppState>,
    access: ProjectAccess<Admin>,
    Path((_project_id, board_id)): Path<(String, String)>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<Deleted>> {
    let id = parse_id(&board_id, "board")?;
    let move_to = query_id(&q, "move_to")?;
    boards::delete(&state.db, access.project.id, id, move_to).await?;
    Ok(Json(Deleted::new(id)))
}

/// The boards the caller may see: public ones, segment boards whose segment an end user's session
/// matches, and every board for the team.
#[utoipa::path(get, path = "/v1/feedback/by-project/{slug}/boards", tag = "feedback",
    params(("slug" = String, Path)),
    responses((status = 200, body = List<Board>), (status = 404, description = "unknown slug")))]
pub async fn visible_boards(
    State(state): State<AppState>,
    MaybeActor(actor): MaybeActor,
    Path(slug): Path<String>,
) -> ApiResult<Json<List<Board>>> {
    let project = projects::by_slug(&state.db, &slug).await?;
    let visible = audience::visible(&state, actor.as_ref(), project.id).await?;
    Ok(Json(visible.boards.into()))
}
