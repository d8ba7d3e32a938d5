-- Customer value: the identify token names the end user's company (with its MRR and plan) and flat
-- attributes; votes say how much they matter; each entry keeps the value behind it (the upvoters'
-- distinct companies' summed MRR, and counts per importance) so members sort by it cheaply.
create table companies (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    -- The customer's own id for the company.
    external_id text not null,
    name text not null,
    mrr double precision check (mrr >= 0),
    plan text,
    updated_at timestamptz not null default now(),
    constraint companies_project_external_key unique (project_id, external_id)
);

alter table end_users
    add column company_id uuid references companies on delete set null,
    add column attributes jsonb not null default '{}';
create index end_users_company_idx on end_users (company_id) where company_id is not null;

alter table feedback_votes
    add column importance text not null default 'nice_to_have'
        constraint feedback_votes_importance_check check (importance in ('nice_to_have', 'important', 'must_have')),
    add column created_at timestamptz not null default now();
create index feedback_votes_end_user_idx on feedback_votes (end_user_id) where end_user_id is not null;
-- An entry's votes whoever cast them (recounts, voters, companies): the unique keys are partial,
-- one per kind of voter, so without this every recount read the whole table.
create index feedback_votes_feedback_idx on feedback_votes (feedback_id);

alter table feedback
    add column mrr double precision not null default 0,
    add column nice_to_have integer not null default 0,
    add column important integer not null default 0,
    add column must_have integer not null default 0;
create index feedback_by_mrr on feedback (project_id, mrr desc, created_at desc, id desc) where merged_into is null;
create index feedback_by_must_have on feedback (project_id, must_have desc, created_at desc, id desc) where merged_into is null;
