//! Replacing a document by its external id: the new version's chunks are written beside the live
//! ones, unchanged text keeps its vectors, and the swap is one transaction.

use sqlx::types::Json;
use sqlx::PgPool;
use uuid::Uuid;

use super::documents::{get, go_live, insert_chunks, Document, Draft};
use super::indexes::IndexRef;
use shipmate_core::AppResult;
use shipmate_types::DocumentStatus;

/// A stored version: the document, and whether the upsert created it (201) or replaced it (200).
pub struct Upserted {
    pub document: Document,
    pub created: bool,
}

/// Creates the document named `external_id`, or replaces its chunks and metadata. Chunks whose
/// text it already has keep their vectors (`chunks_reused`); when all do, the new version is live
/// and `ready` at once, with no embedding to wait for. Otherwise the document is `pending` and the
/// old version stays searchable until the workers' `finish` swaps the new one in.
pub async fn upsert(
    db: &PgPool,
    index: &IndexRef,
    external_id: &str,
    draft: Draft,
) -> AppResult<Upserted> {
    let mut tx = db.begin().await?;
    super::roadmap::check(&mut tx, index.project_id, &draft.feedback_ids).await?;
    // The row lock orders concurrent upserts of one document; the insert's `on conflict` settles
    // two first uploads racing (the loser then finds and locks the winner's row).
    let (id, generation, created) = loop {
        let found = sqlx::query!(
            "select id, generation from kb_documents where index_id = $1 and external_id = $2 for update",
            index.id,
            external_id
        )
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(row) = found {
            // The entries a document is about change without a new version of its text.
            super::roadmap::link(&mut tx, row.id, &draft.feedback_ids).await?;
            if unchanged(&mut tx, row.id, &draft).await? {
                // The source re-sent what is live: nothing to write (a sync re-sending a whole
                // corpus must not churn the index). The lock goes with the transaction.
                let mut document = get(&mut *tx, index.id, row.id).await?;
                document.chunks_reused = Some(draft.chunks.len() as i32);
                return Ok(Upserted {
                    document,
                    created: false,
                });
            }
            break (row.id, row.generation + 1, false);
        }
        let inserted = sqlx::query_scalar!(
            "insert into kb_documents (id, index_id, project_id, metadata, external_id, status, chunks_created)
             values ($1, $2, $3, '{}', $4, 'pending', 0)
             on conflict (index_id, external_id) where external_id is not null do nothing
             returning id",
            Uuid::now_v7(),
            index.id,
            index.project_id,
            external_id
        )
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(id) = inserted {
            super::roadmap::link(&mut tx, id, &draft.feedback_ids).await?;
            break (id, 0, true);
        }
    };
    let reused = insert_chunks(&mut tx, index, id, generation, &draft).await?;
    // A version still being embedded is superseded: its chunks go (their vectors were offered for
    // reuse above); the live version's stay until the swap.
    sqlx::query!(
        "delete from kb_chunks where document_id = $1 and generation < $2 and not ready",
        id,
        generation
    )
    .execute(&mut *tx)
    .await?;
    let ready = reused == draft.chunks.len();
    let mut document = sqlx::query_as!(
        Document,
        r#"update kb_documents set metadata = $2, chunks_created = $3, generation = $4,
            status = case when $5 then 'ready' else 'pending' end, content_hash = $6,
            error = null, lease_until = null, attempts = 0, updated_at = now()
         where id = $1
         returning id, index_id, chunks_created, status as "status: DocumentStatus", error,
            metadata, external_id, null::int4 as chunks_reused, created_at,
            array(select l.feedback_id from kb_document_feedback l where l.document_id = $1
                  order by l.feedback_id) as "feedback_ids!""#,
        id,
        Json(&draft.metadata) as _,
        draft.chunks.len() as i32,
        generation,
        ready,
        &draft.content_hash
    )
    .fetch_one(&mut *tx)
    .await?;
    if ready {
        go_live(&mut tx, &[id]).await?;
    }
    tx.commit().await?;
    document.chunks_reused = Some(reused as i32);
    Ok(Upserted { document, created })
}

/// The live document named `external_id` when it was made from exactly this source (by
/// [`super::documents::content_hash`]) with exactly this metadata and these feedback entries
/// (sorted), and nothing newer is on its way:
/// a re-sync of an unchanged document is then answered without chunking it again, and written
/// nowhere (`chunks_reused` is all of its chunks).
pub async fn live_if_unchanged(
    db: &PgPool,
    index: &IndexRef,
    external_id: &str,
    content_hash: &str,
    metadata: &serde_json::Map<String, serde_json::Value>,
    feedback_ids: &[Uuid],
) -> AppResult<Option<Document>> {
    let found = sqlx::query_scalar!(
        "select d.id from kb_documents d
         where d.index_id = $1 and d.external_id = $2 and d.content_hash = $3 and d.metadata = $4
           and d.status = 'ready'
           and not exists (select 1 from kb_chunks c where c.document_id = d.id and not c.ready)
           and array(select l.feedback_id from kb_document_feedback l where l.document_id = d.id
                     order by l.feedback_id) = $5",
        index.id,
        external_id,
        content_hash,
        Json(metadata) as _,
        feedback_ids
    )
    .fetch_optional(db)
    .await?;
    let Some(id) = found else { return Ok(None) };
    let mut document = get(db, index.id, id).await?;
    document.chunks_reused = Some(document.chunks_created);
    Ok(Some(document))
}

/// Whether the document is `ready` with exactly this metadata and these chunks, in order, and no
/// other version on its way.
async fn unchanged(conn: &mut sqlx::PgConnection, id: Uuid, draft: &Draft) -> AppResult<bool> {
    Ok(sqlx::query_scalar!(
        r#"select d.status = 'ready' and d.metadata = $2
              and not exists (select 1 from kb_chunks c where c.document_id = d.id and not c.ready)
              and (select coalesce(array_agg(c.content_hash order by c.ordinal), '{}') from kb_chunks c
                   where c.document_id = d.id)
                = (select coalesce(array_agg(md5(u.t) order by u.o), '{}')
                   from unnest($3::text[]) with ordinality as u(t, o))
              as "unchanged!"
           from kb_documents d where d.id = $1"#,
        id,
        Json(&draft.metadata) as _,
        &draft.chunks
    )
    .fetch_one(conn)
    .await?)
}
