-- Analytics exploration: visits, goals, funnels, shared dashboards, the weekly report.

-- Visits of the days not closed yet, kept current by the roller (`analytics::visits`); a closed
-- day's visits become summary rows (dims visits, visit_duration, entry_page, exit_page) and go.
create table analytics_visits (
    project_id uuid not null references projects on delete cascade,
    started_at timestamptz not null,
    visitor bigint not null,
    ended_at timestamptz not null,
    page_views integer not null,
    entry_page text,
    exit_page text,
    primary key (project_id, started_at, visitor)
);
-- A pass finds the newest visit of each visitor it sees.
create index analytics_visits_visitor on analytics_visits (visitor, started_at);

create table analytics_goals (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    name text not null,
    event text,
    page text,
    created_at timestamptz not null default now(),
    constraint analytics_goals_one_target check ((event is null) <> (page is null))
);
create index analytics_goals_project on analytics_goals (project_id, created_at);

create table analytics_funnels (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    name text not null,
    -- [{"page": ...} | {"event": ...}], 2 to 8.
    steps jsonb not null,
    created_at timestamptz not null default now()
);
create index analytics_funnels_project on analytics_funnels (project_id, created_at);

create table analytics_shares (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    token text not null unique,
    created_at timestamptz not null default now()
);
create index analytics_shares_project on analytics_shares (project_id, created_at);

-- The weekly report is opt-in for everyone.
alter table project_members add column notify_weekly_report boolean not null default false;

-- Weeks (their Monday) whose report went out per project, so a report is queued once.
create table analytics_reports (
    project_id uuid not null references projects on delete cascade,
    week date not null,
    sent_at timestamptz not null default now(),
    primary key (project_id, week)
);
