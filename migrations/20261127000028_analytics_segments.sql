-- Saved segments: a name for a set of read filters ({"country": "DE", "device": "mobile"}), applied
-- to any read with `segment=<id>`. A share link may be locked to one: its page shows that segment
-- only. Deleting a segment revokes the links locked to it (a link must never widen to all data).
create table analytics_segments (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    name text not null,
    filters jsonb not null,
    created_at timestamptz not null default now()
);
create index analytics_segments_project on analytics_segments (project_id, created_at);

alter table analytics_shares
    add column segment_id uuid references analytics_segments on delete cascade;
