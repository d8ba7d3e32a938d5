//! The feedback loop around the board: public submissions, comments, merging duplicates, the
//! roadmap.

use std::collections::HashMap;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use shipmate_accounts::projects;
use shipmate_accounts::teams::Role;
use shipmate_core::error::Refusal;
use shipmate_core::params::{parse_id, query_id};
use shipmate_core::AppError;
use shipmate_feedback::feedback::comments::{self, Author, Comment, NewComment};
use shipmate_feedback::feedback::merge::{self, MergeRequest};
use shipmate_feedback::feedback::roadmap::{self, Roadmap};
use shipmate_feedback::feedback::similar::{self, SimilarEntry};
use shipmate_feedback::feedback::{
    self, Feedback, FeedbackModeration, NewFeedback, Participant, Start,
};
use shipmate_outbound::notify;
use shipmate_types::common::List;
use uuid::Uuid;

use super::schemas::Deleted;
use crate::audience;
use crate::extract::{require, Actor, Body, Client, JsonBody, MaybeActor, SessionUser};
use crate::limits::honeypot_tripped;
use crate::problem::{ApiError, ApiResult};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/feedback/by-project/{slug}", post(submit))
        .route("/v1/feedback/by-project/{slug}/roadmap", get(roadmap))
        .route("/v1/feedback/by-project/{slug}/similar", get(similar))
        .route(
            "/v1/feedback/{id}/comments",
            post(add_comment).get(list_comments),
        )
        .route("/v1/feedback/comments/{comment_id}", delete(remove_comment))
        .route("/v1/feedback/{id}/merge", post(merge_into))
}

/// A submission from the public board: anonymous (with an optional email for updates) or signed
/// in. With the project's moderation on it waits as `pending`; it starts off the roadmap unless a
/// member of the project (the `member` role and up) sends it with their session. Rate-limited per
/// client address; a filled honeypot field `website` answers 201 and stores nothing.
#[utoipa::path(post, path = "/v1/feedback/by-project/{slug}", tag = "feedback",
    params(("slug" = String, Path)),
    request_body = NewFeedback,
    responses((status = 201, body = Feedback), (status = 404, description = "unknown slug"), (status = 422, description = "invalid fields"), (status = 429, description = "too many submissions")))]
pub async fn submit(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    MaybeActor(actor): MaybeActor,
    Path(slug): Path<String>,
    JsonBody(input): JsonBody,
) -> ApiResult<(StatusCode, Json<Feedback>)> {
    let project = projects::by_slug(&state.db, &slug).await?;
    if let Some(a) = &actor {
        a.who.check_project(project.id)?;
    }
    let bot = honeypot_tripped(&input);
    let mut new: NewFeedback = input.parse()?;
    let visible = audience::visible(&state, actor.as_ref(), project.id).await?;
    let board_id = visible.target(new.board.as_deref())?.id;
    let client = crate::limits::bucket(state.client_ip(peer, &headers));
    state.limits.write(client, project.id).await?;
    let moderation = if project.feedback_moderation {
        FeedbackModeration::Pending
    } else {
        FeedbackModeration::Approved
    };
    if bot {
        // Answer as if accepted, so the bot learns nothing; keep nothing.
        tracing::info!(project_id = %project.id, "feedback honeypot tripped; dropped");
        return Ok((
            StatusCode::CREATED,
            Json(unsaved(project.id, board_id, new, moderation)),
        ));
    }
    let start = Start {
        board_id,
        moderation,
        on_roadmap: from_the_team(&state, actor.as_ref(), project.id).await?,
    };
    // A signed-in or identified submitter hears about status changes at their address.
    if new.submitter_email.is_none() {
        new.submitter_email = actor.and_then(|a| a.email);
    }
    let mut tx = state.db.begin().await?;
    let entry = feedback::create(&mut tx, project.id, new, start).await?;
    let deliveries = notify::feedback_created(&mut tx, state.mail(), &entry).await?;
    tx.commit().await?;
    state.deliver(&deliveries).await;
    Ok((StatusCode::CREATED, Json(entry.public())))
}

/// Whether a dashboard account of the project's team (the `member` role and up) submits: what the
/// team submits is accepted, so it starts on the roadmap. End users and viewers are the public.
async fn from_the_team(
    state: &AppState,
    actor: Option<&Actor>,
    project_id: Uuid,
) -> ApiResult<bool> {
    let Some(Participant::User(user)) = actor.map(|a| a.who) else {
        return Ok(false);
    };
    match projects::access(&state.db, user, project_id, Role::Member).await {
        Ok(_) => Ok(true),
        Err(e) if e.refusal() == Some(Refusal::Forbidden) => Ok(false),
        Err(e) => Err(ApiError::from(e)),
    }
}

/// What a stored submission would look like, for the honeypot's answer.
fn unsaved(
    project_id: Uuid,
    board_id: Uuid,
    new: NewFeedback,
    moderation: FeedbackModeration,
) -> Feedback {
    let now = chrono::Utc::now();
    Feedback {
        id: Uuid::now_v7(),
        project_id,
        board_id,
        title: new.title,
        description: new.description,
        kind: new.kind,
        status: new.kind.statuses()[0],
        submitter_email: None,
        upvotes: 0,
        downvotes: 0,
        score: 0,
        moderation,
        merged_into: None,
        on_roadmap: false,
        tags: Vec::new(),
        companies: None,
        mrr: None,
        importance: None,
        links: None,
        created_at: now,
        updated_at: now,
    }
}

/// Approved feature requests on the roadmap (`on_roadmap`: accepted by the team) by stage:
/// planned, in progress, shipped in the last 90 days; from the boards the caller may see.
#[utoipa::path(get, path = "/v1/feedback/by-project/{slug}/roadmap", tag = "feedback",
    params(("slug" = String, Path), ("tag" = Option<String>, Query, description = "entries with this tag (its id)"),
        ("board" = Option<String>, Query, description = "one board's entries (its slug; 404 unless the caller may see it)")),
    responses((status = 200, body = Roadmap), (status = 404, description = "unknown slug or board")))]
pub async fn roadmap(
    State(state): State<AppState>,
    MaybeActor(actor): MaybeActor,
    Path(slug): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<Roadmap>> {
    let project = projects::by_slug(&state.db, &slug).await?;
    let tag = query_id(&q, "tag")?;
    let visible = audience::visible(&state, actor.as_ref(), project.id).await?;
    let boards = visible.listing(q.get("board").map(String::as_str))?;
    Ok(Json(
        roadmap::roadmap(&state.db, project.id, tag, boards.as_deref()).await?,
    ))
}

/// Up to 5 public entries closest in meaning to `q` (a draft's title), most similar first, from
/// the boards the caller may see: the board's and the widget's "is this already asked?" hint.
#[utoipa::path(get, path = "/v1/feedback/by-project/{slug}/similar", tag = "feedback",
    params(("slug" = String, Path), ("q" = String, Query, description = "the draft's text, 1 to 500 characters"),
        ("board" = Option<String>, Query, description = "one board's entries (its slug; 404 unless the caller may see it)")),
    responses((status = 200, body = shipmate_types::common::List<shipmate_types::feedback::SimilarEntry>), (status = 404, description = "unknown slug"), (status = 422, description = "`q` missing or too long"), (status = 429, description = "the per-client write limit")))]
pub async fn similar(
    State(state): State<AppState>,
    Client(client): Client,
    MaybeActor(actor): MaybeActor,
    Path(slug): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult<Json<List<SimilarEntry>>> {
    let project = projects::by_slug(&state.db, &slug).await?;
    // Each look-up embeds text: it counts like a public write.
    state.limits.write(client, project.id).await?;
    let text = q.get("q").map(|s| s.trim()).unwrap_or_default();
    if text.is_empty() || text.chars().count() > 500 {
        return Err(ApiError::from(AppError::invalid(
            "validation_failed",
            "q",
            "must be 1 to 500 characters",
        )));
    }
    let visible = audience::visible(&state, actor.as_ref(), project.id).await?;
    let boards = visible.listing(q.get("board").map(String::as_str))?;
    let vector = state.embed_query(project.id, similar::MODEL, text).await?;
    Ok(Json(
        similar::similar(&state.db, project.id, boards.as_deref(), &vector)
            .await?
            .into(),
    ))
}

/// Comments on a public entry; a project member's comment is `official`.
#[utoipa::path(post, path = "/v1/feedback/{id}/comments", tag = "feedback", security(("session" = [])),
    params(("id" = String, Path)),
    request_body = NewComment,
    responses((status = 201, body = Comment), (status = 404, description = "no such public entry (hidden and merged entries take no comments)"), (status = 422, description = "invalid body"), (status = 429, description = "the write limit, per client and per actor")))]
pub async fn add_comment(
    State(state): State<AppState>,
    Client(client): Client,
    actor: Actor,
    Path(id): Path<String>,
    Body(NewComment { body }): Body<NewComment>,
) -> ApiResult<(StatusCode, Json<Comment>)> {
    let id = parse_id(&id, "feedback entry")?;
    audience::check_entry(&state, Some(&actor), id).await?;
    let author = Author {
        who: actor.who,
        name: actor.name,
    };
    let mut tx = state.db.begin().await?;
    // Counted per client and per actor: neither many accounts on one address nor one account on
    // many addresses floods a board.
    let project_id = comments::public_entry_project(&mut tx, id).await?;
    state.limits.write(client, project_id).await?;
    state.limits.actor_write(author.who.actor_id()).await?;
    let comment = comments::create(&mut tx, id, &author, &body).await?;
    let deliveries = notify::comment_created(&mut tx, &comment).await?;
    tx.commit().await?;
    state.deliver(&deliveries).await;
    Ok((StatusCode::CREATED, Json(comment)))
}

/// A public entry's comments, oldest first.
#[utoipa::path(get, path = "/v1/feedback/{id}/comments", tag = "feedback",
    params(("id" = String, Path)),
    responses((status = 200, body = shipmate_types::common::List<shipmate_types::feedback::Comment>), (status = 404, description = "no such public entry")))]
pub async fn list_comments(
    State(state): State<AppState>,
    MaybeActor(actor): MaybeActor,
    Path(id): Path<String>,
) -> ApiResult<Json<List<Comment>>> {
    let id = parse_id(&id, "feedback entry")?;
    audience::check_entry(&state, actor.as_ref(), id).await?;
    Ok(Json(comments::list(&state.db, id).await?.into()))
}

/// Deletes a comment: its author, or a member of the project (the `member` role and up).
#[utoipa::path(delete, path = "/v1/feedback/comments/{comment_id}", tag = "feedback", security(("session" = [])),
    params(("comment_id" = String, Path)),
    responses((status = 200, body = Deleted), (status = 403, description = "neither its author nor a member"), (status = 404, description = "no such comment")))]
pub async fn remove_comment(
    State(state): State<AppState>,
    actor: Actor,
    Path(comment_id): Path<String>,
) -> ApiResult<Json<Deleted>> {
    let id = parse_id(&comment_id, "comment")?;
    comments::delete(&state.db, id, actor.who).await?;
    Ok(Json(Deleted::new(id)))
}

/// Merges a duplicate into another entry of the same project (members and up): its votes move
/// (one per user), it leaves every listing, and its voters are told. Answers the target.
#[utoipa::path(post, path = "/v1/feedback/{id}/merge", tag = "feedback", security(("session" = [])),
    params(("id" = String, Path)),
    request_body = MergeRequest,
    responses((status = 200, body = Feedback), (status = 403, description = "without the role needed"), (status = 404, description = "no such entry (or already merged)"), (status = 422, description = "into itself, another project's entry, or a merged one")))]
pub async fn merge_into(
    State(state): State<AppState>,
    session: SessionUser,
    Path(id): Path<String>,
    Body(MergeRequest { into }): Body<MergeRequest>,
) -> ApiResult<Json<Feedback>> {
    let source = feedback::get(&state.db, parse_id(&id, "feedback entry")?).await?;
    require(&state, &session, source.project_id, Role::Member).await?;
    let mut tx = state.db.begin().await?;
    let (source, target) = merge::merge(&mut tx, source.project_id, source.id, into).await?;
    let deliveries = notify::feedback_merged(&mut tx, state.mail(), &source, &target).await?;
    tx.commit().await?;
    state.deliver(&deliveries).await;
    Ok(Json(target))
}
