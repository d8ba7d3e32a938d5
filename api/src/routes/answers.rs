//! Answers (API key): the index's best chunks numbered in a prompt to the configured chat API, and
//! the model's `[n]` mapped back to citations; whole, or streamed as Server-Sent Events.

use std::convert::Infallible;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use futures::Stream;
use shipmate_core::AppError;
use shipmate_kb::answer;
use shipmate_kb::chat::Deltas;
use shipmate_kb::filter::Filter;
use shipmate_kb::search::{Search, SearchMode, SearchResult};
use shipmate_types::kb::{Answer, AnswerDelta, AnswerQuery};
use tokio::sync::OwnedSemaphorePermit;
use uuid::Uuid;

use super::indexes::index_of;
use super::search::{find, Caller};
use crate::extract::{JsonBody, ProjectKey};
use crate::problem::{ApiError, ApiResult};
use crate::read_your_writes::ReadDb;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/indexes/{index_id}/answer", post(answer_question))
}

/// Answers the question from the index: its `top_k` best chunks (found as a search would, `hybrid`
/// unless `mode` says otherwise) are numbered from 1 in the prompt, the model cites them as `[n]`,
/// and `citations` are the cited chunks in the order first cited. With `Accept:
/// text/event-stream`: `event: delta` `{"text"}` as the model writes, then `event: done` with the
/// whole answer (`event: error` with problem details if the provider fails mid-way).
#[utoipa::path(post, path = "/v1/indexes/{index_id}/answer", tag = "knowledge base", security(("api_key" = [])),
    request_body = AnswerQuery,
    responses((status = 200, description = "the answer, or Server-Sent Events with `Accept: text/event-stream`", content((Answer = "application/json"), (AnswerDelta = "text/event-stream"))),
        (status = 404, description = "no such index"),
        (status = 422, description = "an empty question, or invalid top_k, mode or filter"),
        (status = 429, description = "the project has `SHIPMATE_CHAT_PROJECT_CONCURRENCY` answers in flight"),
        (status = 502, description = "`upstream_failed`: the chat API failed or did not answer in time"),
        (status = 503, description = "`chat_not_configured`: no chat API configured")))]
pub async fn answer_question(
    State(state): State<AppState>,
    ReadDb(reads): ReadDb,
    key: ProjectKey,
    Path(index_id): Path<String>,
    headers: HeaderMap,
    JsonBody(input): JsonBody,
) -> ApiResult<Response> {
    let caller = Caller::of(&key);
    let index = index_of(&state, caller.project_id, &index_id).await?;
    let q = input.parse::<AnswerQuery>()?;
    let chat = state.chat.clone().ok_or_else(|| AppError::NotConfigured {
        code: "chat_not_configured",
        detail: "no chat API is configured: set SHIPMATE_CHAT_URL (and SHIPMATE_CHAT_KEY, SHIPMATE_CHAT_MODEL)".into(),
    })?;
    let slot = chat.slot(caller.project_id)?;
    let search = Search {
        query: q.question,
        top_k: q.top_k.unwrap_or(5),
        mode: q.mode.unwrap_or(SearchMode::Hybrid),
        filter: Filter::of(q.filter),
        highlight: false,
        typo_tolerance: true,
    };
    let (chunks, search_id) = find(&state, &reads, caller, &index, &search).await?;
    let prompt = answer::prompt(&search.query, &chunks);
    if wants_stream(&headers) {
        let deltas = chat.stream(&prompt).await?;
        let events = events(Streamed {
            deltas,
            text: String::new(),
            chunks,
            search_id,
            _slot: slot,
            ended: false,
        });
        return Ok(Sse::new(events)
            .keep_alive(KeepAlive::default())
            .into_response());
    }
    let text = chat.complete(&prompt).await?;
    drop(slot);
    Ok(Json(whole(text, &chunks, search_id)).into_response())
}

fn wants_stream(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/event-stream"))
}

fn whole(text: String, chunks: &[SearchResult], search_id: Uuid) -> Answer {
    Answer {
        citations: answer::citations(&text, chunks),
        answer: text,
        search_id,
    }
}

/// A streamed answer in progress; the project's slot is held until it ends.
struct Streamed {
    deltas: Deltas,
    text: String,
    chunks: Vec<SearchResult>,
    search_id: Uuid,
    _slot: OwnedSemaphorePermit,
    ended: bool,
}

fn events(streamed: Streamed) -> impl Stream<Item = Result<Event, Infallible>> {
    futures::stream::unfold(streamed, |mut s| async move {
        if s.ended {
            return None;
        }
        let event = match s.deltas.next().await {
            Ok(Some(text)) => {
                s.text.push_str(&text);
                Event::default()
                    .event("delta")
                    .json_data(AnswerDelta { text })
            }
            Ok(None) => {
                s.ended = true;
                let text = std::mem::take(&mut s.text);
                Event::default()
                    .event("done")
                    .json_data(whole(text, &s.chunks, s.search_id))
            }
            Err(e) => {
                s.ended = true;
                Event::default()
                    .event("error")
                    .json_data(ApiError::from(e).problem())
            }
        };
        Some((
            Ok(event.unwrap_or_else(|_| Event::default().event("error"))),
            s,
        ))
    })
}
