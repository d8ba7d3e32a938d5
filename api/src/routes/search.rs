//! Search of an index (API key): the retrieval answers share, logged for the index's analytics.

use axum::extract::{Path, State};
use axum::routing::post;
use axum::{Json, Router};
use shipmate_core::replicas::Replicas;
use shipmate_core::AppResult;
use shipmate_kb::highlight;
use shipmate_kb::indexes::IndexRef;
use shipmate_kb::roadmap;
use shipmate_kb::search::{self, Search, SearchMode, SearchQuery, SearchResult};
use shipmate_kb::search_log;
use shipmate_kb::typos::{self, Widened};
use sqlx::PgPool;
use uuid::Uuid;

use super::indexes::index_of;
use super::schemas::SearchResults;
use crate::extract::{JsonBody, ProjectKey};
use crate::problem::ApiResult;
use crate::read_your_writes::ReadDb;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/indexes/{index_id}/search", post(search_index))
}

/// The `top_k` best ready chunks for the query: by meaning (`vector`, the default: the query is
/// embedded with the index's model), by words (`keyword`: PostgreSQL full text, no embedding), or
/// both fused by reciprocal rank (`hybrid`). `filter` narrows to documents whose metadata matches.
#[utoipa::path(post, path = "/v1/indexes/{index_id}/search", tag = "knowledge base", security(("api_key" = [])),
    request_body = SearchQuery,
    responses((status = 200, body = SearchResults), (status = 404, description = "no such index"),
        (status = 422, description = "invalid query, top_k, mode or filter (a filter value that is an object names its key: `filter.<key>`)")))]
pub async fn search_index(
    State(state): State<AppState>,
    ReadDb(reads): ReadDb,
    key: ProjectKey,
    Path(index_id): Path<String>,
    JsonBody(input): JsonBody,
) -> ApiResult<Json<SearchResults>> {
    let caller = Caller::of(&key);
    let index = index_of(&state, caller.project_id, &index_id).await?;
    let search: Search = input.parse::<SearchQuery>()?.into();
    let (results, search_id) = find(&state, &reads, caller, &index, &search).await?;
    Ok(Json(SearchResults { results, search_id }))
}

/// Who searches: the project, and whether with a publishable key (which sees public boards'
/// feedback entries only).
#[derive(Clone, Copy)]
pub(super) struct Caller {
    pub project_id: Uuid,
    pub public: bool,
}

impl Caller {
    pub fn of(key: &ProjectKey) -> Caller {
        Caller {
            project_id: key.project.id,
            public: key.public_client.is_some(),
        }
    }
}

/// The search's results, and its id in the index's search log.
pub(super) async fn find(
    state: &AppState,
    reads: &Replicas,
    Caller { project_id, public }: Caller,
    index: &IndexRef,
    search: &Search,
) -> ApiResult<(Vec<SearchResult>, Uuid)> {
    let Search {
        query,
        top_k,
        mode,
        filter,
        highlight,
        ..
    } = search;
    let (top_k, mode) = (*top_k, *mode);
    let limit = search::candidates(mode, top_k);
    let hybrid = matches!(mode, SearchMode::Hybrid);
    let (exact_below, sizes) = (
        state.settings.common.kb.search_exact_below,
        &state.index_sizes,
    );
    // The best cosine similarity, for the analytics' confidence (keyword ranks are no similarity);
    // and the misspelt words as the keyword list read them, for highlights.
    let (mut results, top_score, words) = match mode {
        SearchMode::Keyword => {
            let (results, words) = reads.run(|db| by_words(db, index, search, limit)).await?;
            (results, None, words)
        }
        SearchMode::Vector | SearchMode::Hybrid => {
            // The exact-or-graph check (and, for hybrid, the keyword list) run while the model
            // embeds the query.
            let lists = |db| async move {
                let words = async {
                    match hybrid {
                        true => by_words(db, index, search, limit).await.map(Some),
                        false => Ok(None),
                    }
                };
                tokio::try_join!(sizes.is_small(db, index, filter, exact_below), words)
            };
            let (vector, lists) = tokio::join!(
                state.embed_query(project_id, &index.embedding_model, query),
                reads.run(lists)
            );
            let ((small, words), vector) = (lists?, vector?);
            let nearest = reads
                .run(|db| search::vector(db, index, &vector, limit, small, filter))
                .await?;
            let top_score = nearest.first().map(|r| r.score);
            match words {
                Some((words, widened)) => (
                    search::fuse(vec![nearest, words], top_k),
                    top_score,
                    widened,
                ),
                None => (nearest, top_score, Widened::default()),
            }
        }
    };
    if *highlight {
        let marks = reads
            .run(|db| highlight::of(db, (query, &words), &results))
            .await?;
        highlight::attach(&mut results, marks);
    }
    let documents: Vec<Uuid> = results.iter().map(|r| r.document_id).collect();
    let linked = reads.run(|db| roadmap::of(db, &documents, public)).await?;
    let search_id = log(state, index, search, results.len(), top_score);
    roadmap::attach(&mut results, &linked);
    Ok((results, search_id))
}

/// The keyword list, misspelt words widened first unless the search says not to; and how they
/// were read.
async fn by_words(
    db: &PgPool,
    index: &IndexRef,
    s: &Search,
    limit: i64,
) -> AppResult<(Vec<SearchResult>, Widened)> {
    let widened = match s.typo_tolerance {
        true => typos::widen(db, index.id, &s.query).await?,
        false => Widened::default(),
    };
    let results = search::keyword(db, index, (&s.query, &widened), limit, &s.filter).await?;
    Ok((results, widened))
}

/// Logs the search for the index's analytics (unless `SHIPMATE_SEARCH_LOG` is off): queued, so
/// the search does not wait for the write; its id.
fn log(
    state: &AppState,
    index: &IndexRef,
    search: &Search,
    results: usize,
    top_score: Option<f64>,
) -> Uuid {
    let row = search_log::Logged::new(
        index.id,
        (&search.query, search.mode),
        search.filter.keys(),
        results,
        top_score,
    );
    state.search_log.log(row)
}
