create table users (
    id uuid primary key,
    email text not null unique,
    name text not null default '',
    created_at timestamptz not null default now()
);

-- One row per (identity provider, subject) linked to a user.
create table identities (
    provider text not null,
    subject text not null,
    user_id uuid not null references users on delete cascade,
    primary key (provider, subject)
);

-- Session tokens are stored only as SHA-256 hashes.
create table sessions (
    token_hash bytea primary key,
    user_id uuid not null references users on delete cascade,
    created_at timestamptz not null default now(),
    expires_at timestamptz not null,
    revoked_at timestamptz
);
create index sessions_user_idx on sessions (user_id);

-- OAuth flows in progress (state, PKCE verifier, where to go after).
create table oauth_states (
    state text primary key,
    provider text not null,
    code_verifier text not null,
    redirect_to text,
    cli_callback text,
    cli_state text,
    created_at timestamptz not null default now()
);

create table projects (
    id uuid primary key,
    owner_id uuid not null references users on delete cascade,
    name text not null,
    slug text not null constraint projects_slug_key unique,
    api_key text not null constraint projects_api_key_key unique,
    created_at timestamptz not null default now()
);
create index projects_owner_idx on projects (owner_id);
