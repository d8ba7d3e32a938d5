//! The two graphs on the same 1024-dimension chunks and queries, in SQL alone (no HTTP, no query
//! embedding): the full-vector graph searched as before issue #38 (`hnsw.ef_search` 200, the
//! connection's) against the sign-bit graph with its re-ranking as `shipmate_kb::search` runs it.
//! Recall@10 of each against the exact scan is what "at the same recall" compares; beside it,
//! the share of results at least as close as the exact tenth, less `TIE` (a result tied with
//! the true ones is as good an answer, and this set has many near ties).

use std::collections::HashMap;
use std::time::Instant;

use shipmate_benches::{ms, percentile};
use sqlx::PgPool;

use super::provider_data::{ddl, top, vector_for, DIMS};
use super::{tenant, Stored, TENANTS};

/// Cosine within which two results count as tied.
const TIE: f32 = 0.005;

const FULL_GRAPH: &str = "create index bench_full_1024 on kb_chunks using hnsw ((embedding::vector(1024)) vector_cosine_ops) where dims = 1024";

pub(crate) async fn compare(
    db: &PgPool,
    index: &str,
    stored: &[Stored],
    queries: &[String],
) -> anyhow::Result<()> {
    let t = Instant::now();
    ddl(db, FULL_GRAPH).await?;
    println!(
        "full-vector graph built over {} chunks in {:.1} s, for the comparison",
        stored.len(),
        t.elapsed().as_secs_f64()
    );
    let by_doc: HashMap<&str, &Stored> = stored.iter().map(|s| (s.key.0.as_str(), s)).collect();
    for filtered in [false, true] {
        for graph in [Graph::Full, Graph::Bits] {
            let mut took = Vec::new();
            let (mut recall, mut tied) = (0.0, 0.0);
            for (i, q) in queries.iter().enumerate() {
                let query = vector_for(q);
                let tenant_of = filtered.then_some(i % TENANTS);
                let t = Instant::now();
                let found = nearest(db, index, &query, tenant_of, graph).await?;
                took.push(t.elapsed());
                let truth = top(stored, &query, tenant_of, |_| true);
                let hits = found
                    .iter()
                    .filter(|d| truth.iter().any(|t| &t.0 == *d))
                    .count();
                recall += hits as f64 / truth.len().max(1) as f64;
                let tenth = truth.last().map_or(f32::MIN, |t| t.1);
                let close = found
                    .iter()
                    .filter_map(|d| by_doc.get(d.as_str()))
                    .filter(|s| {
                        s.vector.iter().zip(&query).map(|(a, b)| a * b).sum::<f32>() >= tenth - TIE
                    })
                    .count();
                tied += close as f64 / truth.len().max(1) as f64;
            }
            println!(
                "SQL alone, {graph:?} graph, {}: p50 {}, p99 {}, recall@10 {:.3}, within {TIE} of the tenth {:.3} ({} queries)",
                if filtered {
                    "filtered to 10 %"
                } else {
                    "unfiltered"
                },
                ms(percentile(&mut took, 50.0)),
                ms(percentile(&mut took, 99.0)),
                recall / queries.len().max(1) as f64,
                tied / queries.len().max(1) as f64,
                queries.len()
            );
        }
    }
    ddl(db, "drop index bench_full_1024").await?;
    Ok(())
}

#[derive(Clone, Copy, Debug)]
enum Graph {
    Full,
    Bits,
}

/// The 10 nearest documents by one graph, its filter checked per row as the search does.
async fn nearest(
    db: &PgPool,
    index: &str,
    query: &[f32],
    tenant_of: Option<usize>,
    graph: Graph,
) -> anyhow::Result<Vec<String>> {
    let vector = pgvector::Vector::from(query.to_vec());
    let filter = match tenant_of {
        Some(_) => " and (c.metadata->>'tenant') = $3",
        None => " and $3::text is null",
    };
    let rows = format!(
        "from kb_chunks c where c.index_id = $2::uuid and c.ready and c.dims = {DIMS}{filter}"
    );
    // The re-ranking pool as `shipmate_kb::search` takes it for top 10.
    let pool = if tenant_of.is_some() { 40 } else { 100 };
    let (breadth, sql) = match graph {
        Graph::Full => (
            "200",
            format!("select c.document_id::text {rows} order by c.embedding::vector({DIMS}) <=> $1::vector({DIMS}) limit 10"),
        ),
        Graph::Bits => (
            "800",
            format!(
                "select c.document_id::text from (select c.* {rows}
                   order by binary_quantize(c.embedding)::bit({DIMS}) <~> binary_quantize($1)::bit({DIMS}) limit {pool}) c
                 order by c.embedding <=> $1 limit 10"
            ),
        ),
    };
    let mut tx = db.begin().await?;
    ddl_in(&mut tx, "set local hnsw.iterative_scan = relaxed_order").await?;
    ddl_in(&mut tx, &format!("set local hnsw.ef_search = {breadth}")).await?;
    // runtime-checked: the two graphs' statements, built above from constants
    let found: Vec<String> = sqlx::query_scalar(&sql)
        .bind(&vector)
        .bind(index)
        .bind(tenant_of.map(tenant))
        .fetch_all(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(found)
}

async fn ddl_in(tx: &mut sqlx::PgConnection, statement: &str) -> anyhow::Result<()> {
    // runtime-checked: a setting for this transaction, from the benchmark's constants
    sqlx::query(statement).execute(tx).await?;
    Ok(())
}
