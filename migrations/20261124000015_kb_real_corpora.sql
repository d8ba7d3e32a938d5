-- Knowledge base for real corpora: metadata filters, keyword and hybrid search, upsert by external id.

-- The customer's own id for a document: `PUT .../documents/by-external-id/:id` replaces what it names.
alter table kb_documents add column external_id text;
create unique index kb_documents_external_id_key on kb_documents (index_id, external_id) where external_id is not null;

-- An upsert writes its chunks as the document's next generation beside the live one; the live
-- chunks stay searchable until the new ones all have vectors, then one transaction swaps them.
alter table kb_documents add column generation integer not null default 0;
alter table kb_chunks add column generation integer not null default 0;
alter table kb_chunks drop constraint kb_chunks_ordinal_key;
alter table kb_chunks add constraint kb_chunks_ordinal_key unique (document_id, generation, ordinal);

-- Each chunk carries its version's metadata: a filter is then checked on the row the vector index
-- returns (no join per candidate), and a search never pairs old chunks with new metadata.
alter table kb_chunks add column metadata jsonb not null default '{}';
update kb_chunks c set metadata = d.metadata from kb_documents d where d.id = c.document_id and d.metadata <> '{}';
create index kb_chunks_metadata_idx on kb_chunks using gin (metadata jsonb_path_ops);

-- Unchanged text keeps its vector on upsert: chunks are matched by this hash.
alter table kb_chunks add column content_hash text generated always as (md5(content)) stored;

-- Keyword search: the text search configuration comes from the document's `language` metadata
-- (English when none). A language other than English also keeps the unstemmed words (`simple`),
-- so a query parsed in English still finds exact words in it.
alter table kb_chunks add column ts_config regconfig not null default 'english';
alter table kb_chunks add column tsv tsvector generated always as (
    case when ts_config = 'english'::regconfig then to_tsvector(ts_config, content)
         else to_tsvector(ts_config, content) || to_tsvector('simple'::regconfig, content) end
) stored;
create index kb_chunks_tsv_idx on kb_chunks using gin (tsv);
