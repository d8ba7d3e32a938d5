-- Imports of another tool's history (Plausible's CSV export). The file waits in `file` until a
-- worker applies it: its rows and `status = 'done'` in one transaction, so an import never
-- half-applies; a failed one keeps its `error` and no rows. `progress` (percent) is written
-- outside that transaction, for the dashboard.
create table analytics_imports (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    source text not null check (source in ('plausible')),
    status text not null default 'pending' check (status in ('pending', 'done', 'failed')),
    error text,
    file_name text not null,
    file bytea,
    progress int not null default 0,
    from_day date,
    to_day date,
    rows int8 not null default 0,
    -- A worker's claim: another takes the import over when it is older than the lease.
    claimed_at timestamptz,
    created_at timestamptz not null default now(),
    finished_at timestamptz
);
create index analytics_imports_project on analytics_imports (project_id, created_at);
create index analytics_imports_pending on analytics_imports (created_at) where status = 'pending';

-- The imported days' figures, one row per day, kind and value (kinds: `imports::Kind`); read
-- for the days before the project's first own event.
create table analytics_imported (
    import_id uuid not null references analytics_imports on delete cascade,
    project_id uuid not null,
    day date not null,
    kind smallint not null,
    key text not null,
    visitors int8 not null default 0,
    views int8 not null default 0,
    visits int8 not null default 0,
    bounces int8 not null default 0,
    duration int8 not null default 0
);
create index analytics_imported_reads on analytics_imported (project_id, kind, day);
create index analytics_imported_import on analytics_imported (import_id);
