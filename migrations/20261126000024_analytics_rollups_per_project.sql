-- The roller summarises a day for every project at once, so how far it got (`through`) and where
-- it sealed the day (`sealed`) stay per day, in `analytics_seals`. What a late event changes is
-- one tenant's summaries: `analytics_rollups` is now keyed by project and day, so one project's
-- late event marks only its own day dirty, bumps only its generation (the explore cache of every
-- other project stays valid) and has only its own summary rows rebuilt.
alter table analytics_rollups rename to analytics_seals;
alter index analytics_rollups_pkey rename to analytics_seals_pkey;

create table analytics_rollups (
    project_id uuid not null references projects on delete cascade,
    day date not null,
    dirty boolean not null default false,
    -- Bumped with each late event that makes the project's day dirty (see `analytics::explore`).
    generation int8 not null default 0,
    rolled_at timestamptz not null default now(),
    primary key (project_id, day)
);
create index analytics_rollups_dirty on analytics_rollups (day) where dirty;

-- A day left dirty: every project with events that day is summarised again.
insert into analytics_rollups (project_id, day, dirty, generation)
select distinct e.project_id, s.day, true, s.generation + 1
from analytics_seals s
join analytics_events e on e.ts >= s.day::timestamp at time zone 'UTC'
    and e.ts < (s.day + 1)::timestamp at time zone 'UTC'
where s.dirty;

alter table analytics_seals drop column dirty, drop column generation;
