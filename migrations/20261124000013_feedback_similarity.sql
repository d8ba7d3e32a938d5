-- "Is this already asked?": each entry's title and description embedded by the workers with the
-- bundled local model (all-MiniLM-L6-v2, 384 dimensions), whatever the project's knowledge-base
-- model. Large boards search the graph; small ones scan their own rows exactly.
alter table feedback add column embedding vector(384);

create index feedback_embedding_hnsw on feedback using hnsw (embedding vector_cosine_ops)
    where moderation = 'approved' and merged_into is null;
-- The workers' claim: entries still waiting for their vector.
create index feedback_unembedded_idx on feedback (created_at) where embedding is null;
