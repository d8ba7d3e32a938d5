-- GitHub sync: entries link to issues (closing or reopening one moves the entry), and each project
-- may receive GitHub's `issues` events, verified with its own secret.
alter table feedback add column links text[] not null default '{}';
create index feedback_links_idx on feedback using gin (links);

create table github_integrations (
    project_id uuid primary key references projects on delete cascade,
    secret text not null,
    created_at timestamptz not null default now()
);
