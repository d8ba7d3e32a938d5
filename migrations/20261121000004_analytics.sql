-- Daily salts for visitor hashes; deleted after 48 hours so yesterday's visitors cannot be re-identified.
create table analytics_salts (
    day date primary key,
    salt bytea not null
);

-- Enriched events. No IP address and no user agent is ever stored; `visitor` is a salted daily hash.
-- Few indexes keep ingestion cheap: the primary key makes a replayed batch a no-op.
create table analytics_events (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    ts timestamptz not null,
    name text not null,
    path text,
    referrer_host text,
    utm_source text,
    utm_medium text,
    utm_campaign text,
    screen_width integer,
    device text not null,
    browser text not null,
    os text not null,
    country text,
    visitor bigint not null,
    properties jsonb
);
create index analytics_events_project_ts_idx on analytics_events (project_id, ts);

-- Known bots are counted, not stored as visits.
create table analytics_dropped (
    project_id uuid not null references projects on delete cascade,
    day date not null,
    bots bigint not null default 0,
    primary key (project_id, day)
);
