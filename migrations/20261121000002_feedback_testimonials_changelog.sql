create table feedback (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    title text not null,
    description text,
    type text not null check (type in ('bug', 'feature', 'feedback')),
    status text not null,
    submitter_email text,
    -- Kept equal to the counts in feedback_votes by the vote transaction, so listings need no join.
    upvotes integer not null default 0,
    downvotes integer not null default 0,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);
create index feedback_project_idx on feedback (project_id, created_at desc);

create table feedback_votes (
    feedback_id uuid not null references feedback on delete cascade,
    user_id uuid not null references users on delete cascade,
    value smallint not null check (value in (-1, 1)),
    primary key (feedback_id, user_id)
);

create table testimonials (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    author_name text not null,
    author_email text not null,
    author_title text,
    content text not null,
    rating smallint not null check (rating between 1 and 5),
    tweet_url text,
    status text not null check (status in ('pending', 'approved', 'rejected')),
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);
create index testimonials_project_idx on testimonials (project_id, created_at desc);

create table changelog_entries (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    title text not null,
    content text not null,
    type text not null check (type in ('feature', 'improvement', 'fix', 'breaking')),
    published boolean not null default false,
    published_at timestamptz,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);
create index changelog_project_idx on changelog_entries (project_id, published_at desc);
