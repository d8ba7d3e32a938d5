-- The feedback loop: moderation of board submissions, comments, merged duplicates, links from
-- changelog entries, and each entry's place on the roadmap.

alter table projects add column feedback_moderation boolean not null default false;

alter table feedback
    add column moderation text not null default 'approved'
        constraint feedback_moderation_check check (moderation in ('approved', 'pending', 'spam')),
    -- A merged duplicate points at the entry that absorbed it and leaves every listing.
    add column merged_into uuid references feedback (id) on delete set null,
    -- When the status last changed: the roadmap shows what shipped in the last 90 days.
    add column status_changed_at timestamptz not null default now(),
    add constraint feedback_not_merged_into_itself check (merged_into <> id);

create index feedback_public_idx on feedback (project_id, type, status)
    where moderation = 'approved' and merged_into is null;

create table feedback_comments (
    id uuid primary key,
    feedback_id uuid not null references feedback on delete cascade,
    -- The author's account; kept as a name when the account goes.
    user_id uuid references users on delete set null,
    author_name text not null,
    body text not null,
    -- Written by a member of the project: shown as the team's answer.
    official boolean not null,
    created_at timestamptz not null default now()
);
create index feedback_comments_entry_idx on feedback_comments (feedback_id, created_at, id);

create table changelog_feedback (
    entry_id uuid not null references changelog_entries on delete cascade,
    feedback_id uuid not null references feedback on delete cascade,
    primary key (entry_id, feedback_id)
);
create index changelog_feedback_feedback_idx on changelog_feedback (feedback_id);
