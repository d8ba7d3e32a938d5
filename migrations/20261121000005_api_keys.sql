-- Extra API keys an owner creates beside the project's own key: each limited to some scopes and,
-- optionally, to some browser origins. Stored only as a hash: unlike the project's key, the spec
-- does not ask to read them back, so a leaked database does not leak them.
create table api_keys (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    name text not null,
    key_hash bytea not null unique,
    key_prefix text not null,
    scopes text[] not null,
    allowed_origins text[] not null default '{}',
    created_at timestamptz not null default now()
);
create index api_keys_project_idx on api_keys (project_id, created_at);
