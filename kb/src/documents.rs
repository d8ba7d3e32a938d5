//! Documents and their chunks: stored `pending` at upload, made `ready` by the embedding workers.

use serde_json::{Map, Value};
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::indexes::IndexRef;
use shipmate_core::error::on_constraint;
use shipmate_core::{AppError, AppResult};
use shipmate_outbound::events::{emit_many, EventType};

pub use shipmate_types::kb::{Chunk, Document, DocumentVersion, NewDocument};
pub use shipmate_types::{ContentType, DocumentStatus};

const COLUMNS: &str =
    "id, index_id, chunks_created, status, error, metadata, external_id, created_at,
    array(select l.feedback_id from kb_document_feedback l where l.document_id = kb_documents.id
          order by l.feedback_id) as feedback_ids";

/// A document ready to store: its chunks, and what it carries.
#[derive(Debug, Clone, Default)]
pub struct Draft {
    pub metadata: Map<String, Value>,
    pub external_id: Option<String>,
    pub chunks: Vec<String>,
    /// [`content_hash`] of what the chunks were made from.
    pub content_hash: String,
    /// The feedback entries it is about, sorted (`super::roadmap`).
    pub feedback_ids: Vec<Uuid>,
}

/// A version's source, hashed: its content type and text as sent (before HTML or PDF is read).
pub fn content_hash(text: &str, kind: shipmate_types::ContentType) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(format!("{kind:?}\n"));
    h.update(text);
    hex::encode(h.finalize())
}

/// Stores each document and its chunks as `pending`, all in one transaction: a batch is stored
/// whole or not at all. An external id already in the index is a 409.
pub async fn create(db: &PgPool, index: &IndexRef, drafts: Vec<Draft>) -> AppResult<Vec<Document>> {
    let mut tx = db.begin().await?;
    let mut docs = Vec::with_capacity(drafts.len());
    for draft in &drafts {
        super::roadmap::check(&mut tx, index.project_id, &draft.feedback_ids).await?;
    }
    for draft in drafts {
        let id = Uuid::now_v7();
        let doc = sqlx::query_as::<_, Document>(&format!(
            "insert into kb_documents (id, index_id, project_id, metadata, external_id, status, chunks_created, content_hash)
             values ($1, $2, $3, $4, $5, 'pending', $6, $7) returning {COLUMNS}"
        ))
        .bind(id)
        .bind(index.id)
        .bind(index.project_id)
        .bind(Json(&draft.metadata))
        .bind(&draft.external_id)
        .bind(draft.chunks.len() as i32)
        .bind(&draft.content_hash)
        .fetch_one(&mut *tx)
        .await
        .map_err(on_constraint(
            "kb_documents_external_id_key",
            "conflict",
            "a document with this external_id is already in the index; PUT .../documents/by-external-id/:externalId replaces it",
        ))?;
        insert_chunks(&mut tx, index, id, 0, &draft).await?;
        super::roadmap::link(&mut tx, id, &draft.feedback_ids).await?;
        docs.push(Document {
            feedback_ids: draft.feedback_ids,
            ..doc
        });
    }
    tx.commit().await?;
    Ok(docs)
}

/// Writes a draft's chunks as generation `generation` of document `id`. A chunk whose text some
/// chunk of the document already has (by hash) takes that vector instead of waiting for a new
/// one. Answers how many did.
pub(super) async fn insert_chunks(
    conn: &mut PgConnection,
    index: &IndexRef,
    id: Uuid,
    generation: i32,
    draft: &Draft,
) -> AppResult<usize> {
    let ids: Vec<Uuid> = draft.chunks.iter().map(|_| Uuid::now_v7()).collect();
    let ordinals: Vec<i32> = (0..draft.chunks.len() as i32).collect();
    let config = super::language::of_metadata(&draft.metadata);
    let reused = sqlx::query_scalar!(
        r#"insert into kb_chunks (id, document_id, index_id, generation, ordinal, content, dims, metadata, ts_config, embedding)
         select u.id, $2, $3, $4, u.ordinal, u.content, $5, $6, $7::text::regconfig,
                (select o.embedding from kb_chunks o
                 where o.document_id = $2 and o.content_hash = md5(u.content) and o.embedding is not null
                 limit 1)
         from unnest($1::uuid[], $8::int[], $9::text[]) as u(id, ordinal, content)
         returning embedding is not null as "reused!""#,
        &ids,
        id,
        index.id,
        generation,
        index.dimensions as i16,
        Json(&draft.metadata) as _,
        config,
        &ordinals,
        &draft.chunks
    )
    .fetch_all(&mut *conn)
    .await?;
    Ok(reused.into_iter().filter(|r| *r).count())
}

/// A page of documents, newest first, and the total.
pub async fn list(
    db: &PgPool,
    index_id: Uuid,
    page: i64,
    per_page: i64,
) -> AppResult<(Vec<Document>, i64)> {
    let data = sqlx::query_as::<_, Document>(&format!(
        "select {COLUMNS} from kb_documents where index_id = $1 order by created_at desc, id desc limit $2 offset $3"
    ))
    .bind(index_id)
    .bind(per_page)
    .bind((page - 1) * per_page)
    .fetch_all(db)
    .await?;
    let total: i64 = sqlx::query_scalar!(
        r#"select count(*) as "count!" from kb_documents where index_id = $1"#,
        index_id
    )
    .fetch_one(db)
    .await?;
    Ok((data, total))
}

pub async fn get<'e>(
    db: impl sqlx::PgExecutor<'e>,
    index_id: Uuid,
    id: Uuid,
) -> AppResult<Document> {
    sqlx::query_as::<_, Document>(&format!(
        "select {COLUMNS} from kb_documents where index_id = $1 and id = $2"
    ))
    .bind(index_id)
    .bind(id)
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("document"))
}

/// The chunks of the document's newest version (the one an upsert is embedding, if any), in order.
pub async fn chunks(db: &PgPool, index_id: Uuid, id: Uuid) -> AppResult<Vec<Chunk>> {
    let doc = get(db, index_id, id).await?;
    Ok(sqlx::query_as!(
        Chunk,
        r#"select c.ordinal as chunk_index, c.content, c.embedding is not null as "ready!" from kb_chunks c join kb_documents d on d.id = c.document_id
         where c.document_id = $1 and c.generation = d.generation order by c.ordinal"#,
        doc.id
    )
    .fetch_all(db)
    .await?)
}

/// Deletes the document and all its chunks; a queued embedding job for it then finds nothing to do.
pub async fn delete(db: &PgPool, index_id: Uuid, id: Uuid) -> AppResult<()> {
    let done = sqlx::query!(
        "delete from kb_documents where index_id = $1 and id = $2",
        index_id,
        id
    )
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::not_found("document"));
    }
    Ok(())
}

/// Deletes the document with this external id, answering its id.
pub async fn delete_by_external_id(
    db: &PgPool,
    index_id: Uuid,
    external_id: &str,
) -> AppResult<Uuid> {
    sqlx::query_scalar!(
        "delete from kb_documents where index_id = $1 and external_id = $2 returning id",
        index_id,
        external_id
    )
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("document"))
}

/// Claims pending documents for `lease_secs`: up to `limit` of them and about `chunk_budget` chunks
/// (always at least one document), taking projects in turn (each project's oldest first), so one
/// project's bulk upload cannot starve another's single document. The chunk budget bounds how long
/// a claim takes, hence how long a newly uploaded document waits and how much work a lease covers.
pub async fn claim(
    db: &PgPool,
    lane: &Lane,
    limit: i64,
    chunk_budget: i64,
    lease_secs: i64,
) -> AppResult<Vec<Uuid>> {
    // Each project's oldest few documents only, found by a skip scan over the projects with work
    // waiting: ranking every pending document took 31 ms at 20,000 waiting, per claim.
    Ok(sqlx::query_scalar!("with recursive projects as (
            (select project_id from kb_documents where status = 'pending' order by project_id limit 1)
            union all
            select (select d.project_id from kb_documents d
                    where d.status = 'pending' and d.project_id > p.project_id
                    order by d.project_id limit 1)
            from projects p where p.project_id is not null
         ), ranked as (
            select c.id, c.created_at, c.chunks_created,
                   row_number() over (partition by p.project_id order by c.created_at) as turn
            from projects p cross join lateral (
                select d.id, d.created_at, d.chunks_created
                from kb_documents d join kb_indexes i on i.id = d.index_id
                where d.project_id = p.project_id and d.status = 'pending'
                  and (d.lease_until is null or d.lease_until < now())
                  and (i.embedding_model = any($4)) = $5
                order by d.created_at limit $1
            ) c
            where p.project_id is not null
         ), ordered as (
            select id, turn, created_at,
                   sum(chunks_created) over (order by turn, created_at rows unbounded preceding) - chunks_created as before
            from ranked
         ), pick as (
            select id from ordered where before < $3 order by turn, created_at limit $1
         )
         update kb_documents d set lease_until = now() + make_interval(secs => $2), attempts = attempts + 1
         from pick
         where d.id = pick.id and d.status = 'pending' and (d.lease_until is null or d.lease_until < now())
         returning d.id", limit, lease_secs as f64, chunk_budget, &lane.remote_models, lane.remote)
    .fetch_all(db)
    .await?)
}

/// Which documents a claim takes: those whose index embeds with a remote provider (many calls in
/// flight, each waiting on the network) or the rest (local models, bound by this machine's cores).
pub struct Lane {
    pub remote: bool,
    pub remote_models: Vec<String>,
}

/// A chunk still to embed, with the model its index uses.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PendingChunk {
    pub id: Uuid,
    pub document_id: Uuid,
    pub project_id: Uuid,
    pub content: String,
    pub embedding_model: String,
}

pub async fn pending_chunks(db: &PgPool, documents: &[Uuid]) -> AppResult<Vec<PendingChunk>> {
    Ok(sqlx::query_as!(
        PendingChunk,
        "select c.id, c.document_id, i.project_id, c.content, i.embedding_model
         from kb_chunks c join kb_indexes i on i.id = c.index_id
         where c.document_id = any($1) and c.embedding is null",
        documents
    )
    .fetch_all(db)
    .await?)
}

/// A document with its project, for the events about it.
#[derive(sqlx::FromRow)]
struct Owned {
    project_id: Uuid,
    #[sqlx(flatten)]
    document: Document,
}

/// Records `document.ready` or `document.failed` for these documents, in the caller's transaction.
async fn emit(tx: &mut PgConnection, ids: &[Uuid], kind: EventType) -> AppResult<Vec<Uuid>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let docs = sqlx::query_as::<_, Owned>(&format!(
        "select project_id, {COLUMNS} from kb_documents where id = any($1)"
    ))
    .bind(ids)
    .fetch_all(&mut *tx)
    .await?;
    let items = docs
        .into_iter()
        .map(|o| {
            (
                o.project_id,
                serde_json::to_value(o.document).unwrap_or_default(),
            )
        })
        .collect();
    emit_many(tx, kind, items).await
}

/// Chunks' vectors, by chunk id (in the same order).
#[derive(Default)]
pub struct Vectors {
    pub ids: Vec<Uuid>,
    pub vectors: Vec<Vec<f32>>,
}

/// Writes these documents' chunk vectors, then marks `ready` every listed document whose chunks
/// all have vectors, swapping in a replaced document's new chunks for its old ones, all in one
/// transaction. Answers how many, and the `document.ready` deliveries to queue.
///
/// A vector and its chunk's `ready` flag are written by one update: `ready` is in a partial
/// index's predicate, so no update of it is HOT, and a second update of the row would put the
/// vector into the HNSW graph (and the text into the GIN indexes) a second time. The flag is safe
/// to set with the vector: the documents are locked first, and an upsert that replaced one of
/// them meanwhile has deleted these chunks, so nothing of a version still pending becomes live.
pub async fn finish(
    db: &PgPool,
    documents: &[Uuid],
    vectors: Vectors,
) -> AppResult<(u64, Vec<Uuid>)> {
    let mut tx = db.begin().await?;
    // Locked first (in id order, as upserts lock one row), so the check below runs on a snapshot
    // taken after any upsert of these documents committed: it sees the new version's chunks.
    sqlx::query!(
        "select id from kb_documents where id = any($1) order by id for update",
        documents
    )
    .fetch_all(&mut *tx)
    .await?;
    if !vectors.ids.is_empty() {
        let embeddings: Vec<pgvector::Vector> =
            vectors.vectors.into_iter().map(Into::into).collect();
        // Runtime-checked: the query macros know no `vector` type. A repeated job rewrites the
        // same rows, never adds any.
        // runtime-checked: vectors, a type the macros do not know
        sqlx::query(
            "update kb_chunks c set embedding = u.embedding, ready = true
             from unnest($1::uuid[], $2::vector[]) as u(id, embedding) where c.id = u.id",
        )
        .bind(&vectors.ids)
        .bind(&embeddings)
        .execute(&mut *tx)
        .await?;
    }
    let ready: Vec<Uuid> = sqlx::query_scalar!("update kb_documents d set status = 'ready', lease_until = null, error = null, updated_at = now()
         where d.id = any($1) and d.status = 'pending'
           and not exists (select 1 from kb_chunks c where c.document_id = d.id and c.embedding is null)
         returning d.id", documents)
    .fetch_all(&mut *tx)
    .await?;
    go_live(&mut tx, &ready).await?;
    let deliveries = emit(&mut tx, &ready, EventType::DocumentReady).await?;
    tx.commit().await?;
    Ok((ready.len() as u64, deliveries))
}

/// Makes these documents' latest chunks the searchable ones: older generations go, in the
/// caller's transaction, so a search sees the old version or the new, never a mix.
pub(super) async fn go_live(tx: &mut PgConnection, documents: &[Uuid]) -> AppResult<()> {
    sqlx::query!(
        "delete from kb_chunks c using kb_documents d
         where d.id = any($1) and c.document_id = d.id and c.generation < d.generation",
        documents
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "update kb_chunks set ready = true where document_id = any($1) and not ready",
        documents
    )
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Lets go of claimed documents that were not worked on (another document of the claim failed):
/// claimable again at once, and the claim does not count as one of their attempts.
pub async fn release(db: &PgPool, documents: &[Uuid]) -> AppResult<()> {
    sqlx::query!(
        "update kb_documents set lease_until = null, attempts = greatest(attempts - 1, 0)
         where id = any($1) and status = 'pending'",
        documents
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Renews a claim's lease while its work goes on.
pub async fn extend_lease(db: &PgPool, documents: &[Uuid], lease_secs: i64) -> AppResult<()> {
    sqlx::query!(
        "update kb_documents set lease_until = now() + make_interval(secs => $2)
         where id = any($1) and status = 'pending'",
        documents,
        lease_secs as f64
    )
    .execute(db)
    .await?;
    Ok(())
}

/// After a failed attempt: back off and retry, or after `max_attempts` mark the document `failed`
/// (answering the `document.failed` deliveries to queue).
pub async fn record_failure(
    db: &PgPool,
    documents: &[Uuid],
    error: &str,
    max_attempts: i32,
) -> AppResult<Vec<Uuid>> {
    let mut tx = db.begin().await?;
    let failed = sqlx::query!(
        "update kb_documents set
            status = case when attempts >= $3 then 'failed' else status end,
            error = case when attempts >= $3 then $2 else error end,
            lease_until = now() + make_interval(secs => least(60, power(2, attempts))::float8),
            updated_at = now()
         where id = any($1) and status = 'pending'
         returning id, status",
        documents,
        error,
        max_attempts
    )
    .fetch_all(&mut *tx)
    .await?;
    let failed: Vec<Uuid> = failed
        .into_iter()
        .filter(|r| r.status == "failed")
        .map(|r| r.id)
        .collect();
    let deliveries = emit(&mut tx, &failed, EventType::DocumentFailed).await?;
    tx.commit().await?;
    Ok(deliveries)
}
