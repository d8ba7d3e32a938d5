//! "Is this already asked?": public entries closest in meaning to a draft. The workers embed each
//! entry's title and description with the bundled local model (no provider calls, whatever the
//! project's knowledge-base model); the api embeds the draft with the same model.

use sqlx::{PgPool, Row};
use uuid::Uuid;

use super::PUBLIC;
use shipmate_core::AppResult;

pub use shipmate_types::feedback::SimilarEntry;

/// The model every entry is embedded with (the `feedback.embedding` column is 384 dimensions).
pub const MODEL: &str = "all-minilm-l6-v2";
/// At most this many entries are suggested.
pub const LIMIT: i64 = 5;
/// Entries less similar than this are not suggested: below it MiniLM's cosine means "unrelated".
const FLOOR: f64 = 0.25;
/// Boards with fewer embedded public entries are scanned exactly (faster than the graph there,
/// and exact); larger ones search the HNSW graph.
const EXACT_BELOW: i64 = 5_000;

/// The text an entry is embedded from.
pub fn text(title: &str, description: Option<&str>) -> String {
    match description {
        Some(d) if !d.trim().is_empty() => format!("{title}\n{d}"),
        _ => title.to_owned(),
    }
}

/// The public entries of the project on the boards `boards` (`None`: every board) closest to
/// `query`, most similar first.
pub async fn similar(
    db: &PgPool,
    project_id: Uuid,
    boards: Option<&[Uuid]>,
    query: &[f32],
) -> AppResult<Vec<SimilarEntry>> {
    let vector = pgvector::Vector::from(query.to_vec());
    let on_boards = "($4::uuid[] is null or board_id = any($4))";
    let embedded: i64 = sqlx::query_scalar(&format!(
        "select count(*) from feedback where project_id = $1 and {PUBLIC} and embedding is not null
           and ($2::uuid[] is null or board_id = any($2))"
    ))
    .bind(project_id)
    .bind(boards)
    .fetch_one(db)
    .await?;
    // `+ 0` keeps the planner off the graph index: a small board is sorted exactly.
    let distance = if embedded < EXACT_BELOW {
        "(embedding <=> $2) + 0"
    } else {
        "embedding <=> $2"
    };
    let mut tx = db.begin().await?;
    // pgvector 0.8: keep walking the graph until enough rows of this project pass the filter.
    // runtime-checked: a setting, changed for its effect
    sqlx::query("select set_config('hnsw.iterative_scan', 'strict_order', true)")
        .execute(&mut *tx)
        .await?;
    let rows = sqlx::query(&format!(
        "select id, title, type, status, upvotes - downvotes as score,
                (1 - (embedding <=> $2))::float8 as similarity
         from feedback where project_id = $1 and {PUBLIC} and embedding is not null
           and {on_boards}
         order by {distance} limit $3"
    ))
    .bind(project_id)
    .bind(&vector)
    .bind(LIMIT)
    .bind(boards)
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let similarity: f64 = r.try_get("similarity")?;
        if similarity < FLOOR {
            continue;
        }
        out.push(SimilarEntry {
            id: r.try_get("id")?,
            title: r.try_get("title")?,
            kind: r.try_get("type")?,
            status: r.try_get("status")?,
            score: r.try_get("score")?,
            similarity,
        });
    }
    Ok(out)
}

/// Entries waiting for their vector: (id, text), oldest first, locked for this transaction.
pub async fn claim_unembedded(
    tx: &mut sqlx::PgConnection,
    limit: i64,
) -> AppResult<Vec<(Uuid, String)>> {
    let rows = sqlx::query!(
        "select id, title, description from feedback where embedding is null
         order by created_at limit $1 for update skip locked",
        limit
    )
    .fetch_all(&mut *tx)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| (r.id, text(&r.title, r.description.as_deref())))
        .collect())
}

/// Writes entries' vectors (runtime-checked: the query macros know no `vector` type).
pub async fn store(
    tx: &mut sqlx::PgConnection,
    ids: &[Uuid],
    vectors: Vec<Vec<f32>>,
) -> AppResult<()> {
    let vectors: Vec<pgvector::Vector> = vectors.into_iter().map(Into::into).collect();
    // runtime-checked: vectors, a type the macros do not know
    sqlx::query(
        "update feedback f set embedding = u.embedding
         from unnest($1::uuid[], $2::vector[]) as u(id, embedding) where f.id = u.id",
    )
    .bind(ids)
    .bind(&vectors)
    .execute(&mut *tx)
    .await?;
    Ok(())
}
