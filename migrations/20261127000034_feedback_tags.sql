-- Tags for triage: a project's labels with a colour; an entry holds the ids of its tags (a GIN
-- index serves `tag=` filters).
create table feedback_tags (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    name text not null,
    color text not null,
    created_at timestamptz not null default now()
);
create unique index feedback_tags_name on feedback_tags (project_id, lower(name));

alter table feedback add column tag_ids uuid[] not null default '{}';
create index feedback_tag_ids_idx on feedback using gin (tag_ids);
