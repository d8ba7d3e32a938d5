-- End-user identity: the customer's own users, identified by a JWT their backend signs with the
-- project's identify secret. They vote, comment and submit in that project only; they are never
-- dashboard accounts.

alter table projects add column identify_secret text;

create table end_users (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    -- The customer's id for the user: the same `sub` is the same voter each time.
    sub text not null,
    email text,
    name text not null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint end_users_project_sub_key unique (project_id, sub)
);

create table end_user_sessions (
    token_hash bytea primary key,
    end_user_id uuid not null references end_users on delete cascade,
    expires_at timestamptz not null,
    created_at timestamptz not null default now()
);
create index end_user_sessions_expiry_idx on end_user_sessions (expires_at);

-- A vote is a dashboard user's or an end user's.
alter table feedback_votes drop constraint feedback_votes_pkey;
alter table feedback_votes alter column user_id drop not null;
alter table feedback_votes add column end_user_id uuid references end_users on delete cascade;
alter table feedback_votes add constraint feedback_votes_one_voter
    check ((user_id is null) <> (end_user_id is null));
create unique index feedback_votes_user_key on feedback_votes (feedback_id, user_id)
    where user_id is not null;
create unique index feedback_votes_end_user_key on feedback_votes (feedback_id, end_user_id)
    where end_user_id is not null;

alter table feedback_comments add column end_user_id uuid references end_users on delete set null;
