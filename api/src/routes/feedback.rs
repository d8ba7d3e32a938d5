//! The feedback board: submit (API key), public listing, votes (session), moderation (owner).

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::routing::{delete as delete_route, get, patch, post};
use axum::{Json, Router};
use shipmate_accounts::projects;
use shipmate_accounts::teams::Role;
use shipmate_core::params::{parse_id, query_enum, query_id, Paging};
use shipmate_core::AppError;
use shipmate_feedback::feedback::boards::{self, Audience};
use shipmate_feedback::feedback::value;
use shipmate_feedback::feedback::{
    self, Feedback, FeedbackChanges, FeedbackModeration, FeedbackSort, FeedbackStatus,
    FeedbackType, ListFilter, NewFeedback, Start, VoteState,
};
use shipmate_outbound::notify;
use shipmate_types::common::{List, Page};
use shipmate_types::customers::{VoteRequest, Voter};
use shipmate_types::Importance;
use uuid::Uuid;

use super::schemas::Deleted;
use crate::audience;
use crate::extract::{
    require, Actor, Body, MaybeActor, OptionalBody, ProjectAccess, ProjectKey, SessionUser, Viewer,
};
use crate::problem::{ApiError, ApiResult};
use crate::read_your_writes::ReadDb;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/feedback", post(create).get(list_owner))
        .route("/v1/feedback/by-project/{slug}", get(list_public))
        .route("/v1/feedback/{id}", patch(update).delete(remove))
        .route("/v1/feedback/{id}/upvote", post(upvote))
        .route("/v1/feedback/{id}/downvote", post(downvote))
        .route("/v1/feedback/{id}/vote", delete_route(withdraw))
        .route("/v1/feedback/{id}/voters", get(voters))
}

/// Submits a bug, feature request or general feedback. With the publishable key (or another
/// public scoped key) the entry follows the project's `feedback_moderation` and starts off the
/// roadmap; with the secret key (or a member's session and `X-Project-Id`) it is approved and on
/// the roadmap at once.
#[utoipa::path(post, path = "/v1/feedback", tag = "feedback", security(("api_key" = [])),
    request_body = NewFeedback,
    responses((status = 201, body = Feedback), (status = 401, description = "bad API key"), (status = 422, description = "invalid fields")))]
pub async fn create(
    State(state): State<AppState>,
    ProjectKey {
        project,
        public_client,
    }: ProjectKey,
    Body(new): Body<NewFeedback>,
) -> ApiResult<(StatusCode, Json<Feedback>)> {
    // Only the secret key (the customer's own server) or a member submits approved entries the
    // team accepts; a key the public holds follows the project's moderation and waits for a member
    // to put it on the roadmap, as the public board does.
    let public = public_client.is_some();
    // A key the public holds posts where the public may; the secret key anywhere.
    let audience = if public {
        Audience::Public
    } else {
        Audience::Team
    };
    let visible = boards::visible(&state.db, project.id, &audience).await?;
    let start = Start {
        board_id: visible.target(new.board.as_deref())?.id,
        moderation: if public && project.feedback_moderation {
            FeedbackModeration::Pending
        } else {
            FeedbackModeration::Approved
        },
        on_roadmap: !public,
    };
    let mut tx = state.db.begin().await?;
    let entry = feedback::create(&mut tx, project.id, new, start).await?;
    let deliveries = notify::feedback_created(&mut tx, state.mail(), &entry).await?;
    tx.commit().await?;
    state.deliver(&deliveries).await;
    // The key is public by nature (it sits in customers' pages): addresses are for the owner's views only.
    Ok((StatusCode::CREATED, Json(entry.public())))
}

/// The project's boards: entries with vote counts, never submitters' addresses. Public boards,
/// segment boards to end users whose identify token matches, private boards to the team.
#[utoipa::path(get, path = "/v1/feedback/by-project/{slug}", tag = "feedback",
    params(("slug" = String, Path), ("type" = Option<FeedbackType>, Query), ("status" = Option<FeedbackStatus>, Query), ("sort" = Option<FeedbackSort>, Query, description = "`top` (default) or `new`"),
        ("tag" = Option<String>, Query, description = "entries with this tag (its id)"),
        ("board" = Option<String>, Query, description = "one board's entries (its slug; 404 unless the caller may see it)"),
        ("page" = Option<i64>, Query), ("per_page" = Option<i64>, Query, description = "1 to 100, default 50")),
    responses((status = 200, body = shipmate_types::common::Page<shipmate_types::feedback::Feedback>), (status = 404, description = "unknown slug")))]
pub async fn list_public(
    State(state): State<AppState>,
    ReadDb(reads): ReadDb,
    MaybeActor(actor): MaybeActor,
    Path(slug): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<Page<Feedback>>> {
    let project = reads.run(|db| projects::by_slug(db, &slug)).await?;
    let visible = audience::visible(&state, actor.as_ref(), project.id).await?;
    // The board shows approved entries only, whatever `moderation` asks for.
    let filter = ListFilter {
        public: true,
        moderation: None,
        boards: visible.listing(q.get("board").map(String::as_str))?,
        ..parse_filter(&q)?
    };
    if filter.sort.by_value() {
        return Err(AppError::invalid(
            "validation_failed",
            "sort",
            "must be top or new on the public board (mrr and must_have are for members)",
        )
        .into());
    }
    let paging = Paging::parse(&q)?;
    let (data, total) = reads
        .run(|db| feedback::list(db, project.id, &filter, paging))
        .await?;
    let data = data.into_iter().map(Feedback::public).collect();
    Ok(Json(paging.wrap(data, total)))
}

/// Every entry of a project, with submitters' addresses and the customer value behind each
/// (`companies`, `mrr`, `importance`), for the team (viewers and up). `sort` also takes `mrr` and
/// `must_have` here.
#[utoipa::path(get, path = "/v1/feedback", tag = "feedback", security(("session" = [])),
    params(("project_id" = String, Query), ("type" = Option<FeedbackType>, Query), ("status" = Option<FeedbackStatus>, Query), ("sort" = Option<FeedbackSort>, Query),
        ("moderation" = Option<FeedbackModeration>, Query, description = "one moderation state (the review queue)"),
        ("tag" = Option<String>, Query, description = "entries with this tag (its id)"),
        ("board" = Option<String>, Query, description = "one board's entries (its slug)"),
        ("page" = Option<i64>, Query), ("per_page" = Option<i64>, Query, description = "1 to 100, default 50")),
    responses((status = 200, body = shipmate_types::common::Page<shipmate_types::feedback::Feedback>), (status = 403, description = "without the role needed"), (status = 404, description = "no such board")))]
pub async fn list_owner(
    State(state): State<AppState>,
    ProjectAccess { project, .. }: ProjectAccess<Viewer>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<Page<Feedback>>> {
    let mut filter = parse_filter(&q)?;
    if let Some(slug) = q.get("board") {
        let team = boards::visible(&state.db, project.id, &Audience::Team).await?;
        filter.boards = team.listing(Some(slug))?;
    }
    let paging = Paging::parse(&q)?;
    let (mut data, total) = feedback::list(&state.db, project.id, &filter, paging).await?;
    value::fill_companies(&state.db, &mut data).await?;
    Ok(Json(paging.wrap(data, total)))
}

pub fn parse_filter(q: &HashMap<String, String>) -> ApiResult<ListFilter> {
    Ok(ListFilter {
        kind: query_enum(q, "type")?,
        status: query_enum(q, "status")?,
        sort: query_enum(q, "sort")?.unwrap_or_default(),
        public: false,
        moderation: query_enum(q, "moderation")?,
        tag: query_id(q, "tag")?,
        boards: None,
    })
}

/// Moves an entry to another status of its type's set (which puts it on the roadmap), moderates
/// it, puts it on the roadmap or takes it off, tags it, moves it to another board, and/or links it
/// to GitHub issues (members and up).
#[utoipa::path(patch, path = "/v1/feedback/{id}", tag = "feedback", security(("session" = [])),
    request_body = FeedbackChanges,
    responses((status = 200, body = Feedback), (status = 403, description = "without the role needed"), (status = 404, description = "no such entry, or no such `board` in its project"), (status = 422, description = "`invalid_status`, or `validation_failed` naming `links`")))]
pub async fn update(
    State(state): State<AppState>,
    session: SessionUser,
    Path(id): Path<String>,
    Body(changes): Body<FeedbackChanges>,
) -> ApiResult<Json<Feedback>> {
    let mut entry = entry_owned(&state, &session, &id).await?;
    let mut tx = state.db.begin().await?;
    let mut deliveries = Vec::new();
    if let Some(status) = changes.status {
        let allowed = entry.kind.statuses();
        if !allowed.contains(&status) {
            let names: Vec<&str> = allowed.iter().map(|s| s.as_str()).collect();
            return Err(ApiError::from(AppError::invalid(
                "invalid_status",
                "status",
                format!(
                    "must be one of {} for a {} entry",
                    names.join(", "),
                    entry.kind
                ),
            )));
        }
        let previous;
        (entry, previous) =
            feedback::set_status(&mut tx, entry.project_id, entry.id, status).await?;
        deliveries =
            notify::feedback_status_changed(&mut tx, state.mail(), &entry, previous).await?;
    }
    if let Some(moderation) = changes.moderation {
        entry = feedback::set_moderation(&mut tx, entry.project_id, entry.id, moderation).await?;
    }
    // After the status: an explicit `on_roadmap` wins over the status change's acceptance.
    if let Some(on_roadmap) = changes.on_roadmap {
        entry = feedback::set_on_roadmap(&mut tx, entry.project_id, entry.id, on_roadmap).await?;
    }
    if let Some(links) = &changes.links {
        entry = feedback::github::set_links(&mut tx, entry.project_id, entry.id, links).await?;
    }
    if let Some(tags) = &changes.tags {
        entry = feedback::tags::set_tags(&mut tx, entry.project_id, entry.id, tags).await?;
    }
    if let Some(slug) = &changes.board {
        let team = boards::visible(&state.db, entry.project_id, &Audience::Team).await?;
        let board = team.by_slug(slug)?.id;
        entry = feedback::set_board(&mut tx, entry.project_id, entry.id, board).await?;
    }
    tx.commit().await?;
    state.deliver(&deliveries).await;
    value::fill_companies(&state.db, std::slice::from_mut(&mut entry)).await?;
    Ok(Json(entry))
}

/// Deletes an entry and its votes (members and up).
#[utoipa::path(delete, path = "/v1/feedback/{id}", tag = "feedback", security(("session" = [])),
    responses((status = 200, body = Deleted), (status = 403, description = "without the role needed"), (status = 404, description = "no such entry")))]
pub async fn remove(
    State(state): State<AppState>,
    session: SessionUser,
    Path(id): Path<String>,
) -> ApiResult<Json<Deleted>> {
    let entry = entry_owned(&state, &session, &id).await?;
    feedback::delete(&state.db, entry.project_id, entry.id).await?;
    Ok(Json(Deleted::new(entry.id)))
}

/// The entry, if the session's user moderates its project (404 when there is no such entry, 403
/// for a viewer or a non-member).
async fn entry_owned(state: &AppState, session: &SessionUser, id: &str) -> ApiResult<Feedback> {
    let entry = feedback::get(&state.db, parse_id(id, "feedback entry")?).await?;
    require(state, session, entry.project_id, Role::Member).await?;
    Ok(entry)
}

/// Upvotes a feature request, saying how much it matters (`importance`); repeating it updates the
/// importance, and it replaces a downvote.
#[utoipa::path(post, path = "/v1/feedback/{id}/upvote", tag = "feedback", security(("session" = [])),
    request_body(content = VoteRequest, description = "optional: how much it matters (default `nice_to_have`)"),
    responses((status = 200, body = VoteState), (status = 404, description = "no such entry"), (status = 422, description = "`voting_not_allowed`")))]
pub async fn upvote(
    state: State<AppState>,
    actor: Actor,
    id: Path<String>,
    OptionalBody(vote): OptionalBody<VoteRequest>,
) -> ApiResult<Json<VoteState>> {
    let importance = vote.importance.unwrap_or(Importance::NiceToHave);
    cast(state, actor, id, 1, importance).await
}

/// Downvotes a feature request; repeating it changes nothing, and it replaces an upvote.
#[utoipa::path(post, path = "/v1/feedback/{id}/downvote", tag = "feedback", security(("session" = [])),
    responses((status = 200, body = VoteState), (status = 404, description = "no such entry"), (status = 422, description = "`voting_not_allowed`")))]
pub async fn downvote(
    state: State<AppState>,
    actor: Actor,
    id: Path<String>,
) -> ApiResult<Json<VoteState>> {
    cast(state, actor, id, -1, Importance::NiceToHave).await
}

/// Withdraws the caller's vote.
#[utoipa::path(delete, path = "/v1/feedback/{id}/vote", tag = "feedback", security(("session" = [])),
    responses((status = 200, body = VoteState), (status = 404, description = "no such entry")))]
pub async fn withdraw(
    state: State<AppState>,
    actor: Actor,
    id: Path<String>,
) -> ApiResult<Json<VoteState>> {
    cast(state, actor, id, 0, Importance::NiceToHave).await
}

/// The entry's upvoters, newest first (up to 1,000): name, email, company and importance
/// (members and up).
#[utoipa::path(get, path = "/v1/feedback/{id}/voters", tag = "feedback", security(("session" = [])),
    responses((status = 200, body = List<Voter>), (status = 403, description = "without the role needed"), (status = 404, description = "no such entry")))]
pub async fn voters(
    State(state): State<AppState>,
    session: SessionUser,
    Path(id): Path<String>,
) -> ApiResult<Json<List<Voter>>> {
    let entry = entry_owned(&state, &session, &id).await?;
    Ok(Json(value::voters(&state.db, entry.id).await?.into()))
}

/// Dashboard sessions and end-user sessions (`eu_`, in their own project) vote alike.
async fn cast(
    State(state): State<AppState>,
    actor: Actor,
    Path(id): Path<String>,
    value: i16,
    importance: Importance,
) -> ApiResult<Json<VoteState>> {
    let id: Uuid = parse_id(&id, "feedback entry")?;
    audience::check_entry(&state, Some(&actor), id).await?;
    let (user, end_user) = actor.who.ids();
    state
        .limits
        .vote(user.or(end_user).unwrap_or_default())
        .await?;
    Ok(Json(
        feedback::vote(&state.db, id, actor.who, value, importance).await?,
    ))
}
