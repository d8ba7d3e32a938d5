create extension if not exists vector;

-- The model a project is locked to by its first index.
alter table projects add column embedding_model text;

create table kb_indexes (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    name text not null,
    embedding_model text not null,
    dimensions integer not null,
    external_id text,
    created_at timestamptz not null default now(),
    constraint kb_indexes_name_key unique (project_id, name)
);

create table kb_documents (
    id uuid primary key,
    index_id uuid not null references kb_indexes on delete cascade,
    project_id uuid not null,
    metadata jsonb not null default '{}',
    status text not null check (status in ('pending', 'ready', 'failed')),
    error text,
    chunks_created integer not null,
    -- A worker's claim: others leave the document alone until the lease runs out, so a killed
    -- worker's documents are picked up again.
    lease_until timestamptz,
    attempts integer not null default 0,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);
create index kb_documents_index_idx on kb_documents (index_id, created_at desc);
create index kb_documents_pending_idx on kb_documents (project_id, created_at) where status = 'pending';

-- One vector column for every model size; `dims` selects the partial HNSW index of that size.
create table kb_chunks (
    id uuid primary key,
    document_id uuid not null references kb_documents on delete cascade,
    index_id uuid not null,
    ordinal integer not null,
    content text not null,
    dims smallint not null,
    embedding vector,
    ready boolean not null default false,
    constraint kb_chunks_ordinal_key unique (document_id, ordinal)
);
create index kb_chunks_index_idx on kb_chunks (index_id) where ready;
create index kb_chunks_hnsw_384 on kb_chunks using hnsw ((embedding::vector(384)) vector_cosine_ops) where dims = 384;
create index kb_chunks_hnsw_768 on kb_chunks using hnsw ((embedding::vector(768)) vector_cosine_ops) where dims = 768;
create index kb_chunks_hnsw_1024 on kb_chunks using hnsw ((embedding::vector(1024)) vector_cosine_ops) where dims = 1024;
-- HNSW indexes `vector` up to 2,000 dimensions; 3,072 goes through halfvec.
create index kb_chunks_hnsw_3072 on kb_chunks using hnsw ((embedding::halfvec(3072)) halfvec_cosine_ops) where dims = 3072;
