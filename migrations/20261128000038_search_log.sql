-- Search analytics (Trieve's): every search of an index, and the results people opened.
create table kb_searches (
    id uuid primary key,
    index_id uuid not null references kb_indexes on delete cascade,
    query text not null,
    -- Lowercase, runs of white space as one: how analytics groups queries.
    query_key text not null,
    mode text not null,
    filter_keys text[] not null default '{}',
    results int not null,
    -- The best cosine similarity of a vector or hybrid search; null for keyword searches.
    top_score double precision,
    created_at timestamptz not null default now()
);
create index kb_searches_by_index on kb_searches (index_id, created_at);

create table kb_search_clicks (
    search_id uuid not null references kb_searches on delete cascade,
    document_id uuid not null,
    position int not null,
    created_at timestamptz not null default now(),
    primary key (search_id, document_id)
);
