-- Password accounts beside identity providers, an instance admin, disabled accounts.
alter table users
    add column password_hash text,
    add column is_admin boolean not null default false,
    add column disabled_at timestamptz;
-- The earliest user of an existing install becomes its admin, as the first account of a new one does.
update users set is_admin = true where id = (select id from users order by created_at, id limit 1);

-- Sessions get an id to be listed and ended by, and when they were last used (to the minute).
alter table sessions
    add column id uuid not null default gen_random_uuid(),
    add column last_used_at timestamptz not null default now();
create unique index sessions_id_idx on sessions (id);

-- Failed password sign-ins, per email, for the 10-in-15-minutes limit shared by every api process.
create table login_failures (
    email text not null,
    failed_at timestamptz not null default now()
);
create index login_failures_email_idx on login_failures (email, failed_at);

-- One-hour, single-use password reset links; only the token's hash is stored.
create table password_resets (
    token_hash bytea primary key,
    user_id uuid not null references users on delete cascade,
    created_at timestamptz not null default now(),
    expires_at timestamptz not null,
    used_at timestamptz
);
create index password_resets_user_idx on password_resets (user_id);

-- Started OAuth sign-ins are capped per client (a hash of its address, never the address) and bound to
-- the browser that started them (a hash of a cookie's value).
alter table oauth_states
    add column client_hash bytea not null default '\x',
    add column browser_hash bytea not null default '\x';
create index oauth_states_client_idx on oauth_states (client_hash, created_at);

-- Teams: a role per (project, user). The check constraint mirrors the Rust `Role` enum.
create table project_members (
    project_id uuid not null references projects on delete cascade,
    user_id uuid not null references users on delete cascade,
    role text not null constraint project_members_role_check check (role in ('owner', 'admin', 'member', 'viewer')),
    created_at timestamptz not null default now(),
    primary key (project_id, user_id)
);
create index project_members_user_idx on project_members (user_id);
insert into project_members (project_id, user_id, role, created_at)
    select id, owner_id, 'owner', created_at from projects;
-- Ownership now lives in project_members: a project outlives its creator's account.
alter table projects drop column owner_id;

-- Invites: 7 days, single use, bound to an email; only the token's hash is stored.
create table invites (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    email text not null,
    role text not null constraint invites_role_check check (role in ('owner', 'admin', 'member', 'viewer')),
    token_hash bytea not null unique,
    invited_by uuid references users on delete set null,
    created_at timestamptz not null default now(),
    expires_at timestamptz not null,
    accepted_at timestamptz
);
create index invites_project_idx on invites (project_id, created_at);
