-- The firehose table, partitioned by day so old days can be detached or dropped whole and today's
-- writes touch one small partition. One index only: the primary key serves both the per-project
-- time-range reads and the replay check (a redelivered batch carries the same id and ts).
-- The workers create each day's partition ahead of time; the default partition catches the rest.
alter table analytics_events rename to analytics_events_before_partitioning;
create table analytics_events (
    project_id uuid not null references projects on delete cascade,
    ts timestamptz not null,
    id uuid not null,
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
    properties jsonb,
    primary key (project_id, ts, id)
) partition by range (ts);
create table analytics_events_default partition of analytics_events default;
insert into analytics_events (project_id, ts, id, name, path, referrer_host, utm_source, utm_medium, utm_campaign,
    screen_width, device, browser, os, country, visitor, properties)
select project_id, ts, id, name, path, referrer_host, utm_source, utm_medium, utm_campaign,
    screen_width, device, browser, os, country, visitor, properties
from analytics_events_before_partitioning;
drop table analytics_events_before_partitioning;

-- Daily summaries the reads use for every closed day (today is read from the raw partition).
-- `dim`: total, hour (value 00-23), page, referrer, country, device, browser, os, utm_source,
-- utm_medium, utm_campaign (page views only) and event (every event name, `views` = occurrences).
-- `visitors` is the day's distinct visitor hashes: a period's visitors are the sum over its days.
create table analytics_daily (
    project_id uuid not null references projects on delete cascade,
    day date not null,
    dim text not null,
    value text not null,
    views bigint not null,
    visitors bigint not null,
    primary key (project_id, day, dim, value)
);

-- Days whose summaries are complete, in order: reads take summaries up to the latest one.
create table analytics_rollups (
    day date primary key,
    rolled_at timestamptz not null default now()
);
