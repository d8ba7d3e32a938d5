-- Smaller raw rows, and summaries kept current during the day.
--
-- * The per-event id and its primary key were more than a third of each row. A replayed batch is
--   now recognised by the queue entries it came from (`analytics_replays`, one row per stored
--   batch, kept only while those entries could be redelivered), so the raw rows need no key.
-- * Device, browser and OS are two-byte codes into `analytics_labels`.
-- * Fixed-width columns come first, so the row wastes no alignment padding.
-- * Closed days are read from the summaries only, so their rows need no index but a BRIN on `ts`
--   (a few pages per partition). Today's partition also has (ts), for the events of the last
--   seconds that summary passes and reads take, and (project, visitor, ts), to tell whether such
--   an event's visitor was counted already. Both are dropped once the day is rolled up.

create table analytics_labels (
    id smallint generated always as identity primary key,
    label text not null unique
);

create table analytics_replays (
    -- Stream entry ids, each as (milliseconds << 20 | sequence).
    entries int8[] not null,
    last_entry int8 not null,
    -- Some of them were taken over from another worker (see `store::insert`).
    redelivered boolean not null,
    stored_at timestamptz not null default now()
);
-- Reads of first deliveries look only at the records of reads that took entries over: rare rows,
-- found without scanning the record (or its dead rows, between vacuums).
create index analytics_replays_redelivered on analytics_replays (last_entry) where redelivered;

-- Summaries of `day` cover exactly its events before `through` (the day's end once the day is
-- closed). A roll first seals the day up to where it will summarise (`sealed`): events before the
-- seal that are stored afterwards mark the day `dirty`, to be summarised again.
alter table analytics_rollups
    add column through timestamptz,
    add column sealed timestamptz,
    add column dirty boolean not null default false;
update analytics_rollups set through = (day + 1)::timestamp at time zone 'UTC', sealed = (day + 1)::timestamp at time zone 'UTC';
alter table analytics_rollups alter column through set not null, alter column sealed set not null;

-- A read takes one dimension over a run of days: key the summaries that way.
alter table analytics_daily drop constraint analytics_daily_pkey,
    add primary key (project_id, dim, day, value);

insert into analytics_labels (label)
select distinct v from analytics_events, lateral (values (device), (browser), (os)) l(v)
order by 1;

do $$
declare
    part record;
    d date;
begin
    alter table analytics_events rename to analytics_events_old;
    for part in select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid
                where i.inhparent = 'analytics_events_old'::regclass loop
        execute format('alter table %I rename to %I', part.relname, part.relname || '_old');
    end loop;
    create table analytics_events (
        project_id uuid not null references projects on delete cascade,
        ts timestamptz not null,
        visitor bigint not null,
        screen_width integer,
        -- Codes in analytics_labels. No foreign keys: the workers take the codes from that table,
        -- and a key check per row and column tripled the cost of an insert.
        device smallint not null,
        browser smallint not null,
        os smallint not null,
        name text not null,
        path text,
        referrer_host text,
        utm_source text,
        utm_medium text,
        utm_campaign text,
        country text,
        properties jsonb
    ) partition by range (ts);
    create index analytics_events_ts on analytics_events using brin (ts);
    create table analytics_events_default partition of analytics_events default;
    for d in select distinct (ts at time zone 'UTC')::date from analytics_events_old loop
        execute format(
            'create table analytics_events_%s partition of analytics_events for values from (%L) to (%L)',
            to_char(d, 'YYYYMMDD'), d::timestamp at time zone 'UTC', (d + 1)::timestamp at time zone 'UTC');
        if d >= (now() at time zone 'UTC')::date then
            execute format('create index analytics_events_%s_visitors on analytics_events_%s (project_id, visitor, ts)',
                to_char(d, 'YYYYMMDD'), to_char(d, 'YYYYMMDD'));
            execute format('create index analytics_events_%s_recent on analytics_events_%s (ts)',
                to_char(d, 'YYYYMMDD'), to_char(d, 'YYYYMMDD'));
        end if;
    end loop;
    insert into analytics_events (project_id, ts, visitor, screen_width, device, browser, os, name, path,
        referrer_host, utm_source, utm_medium, utm_campaign, country, properties)
    select e.project_id, e.ts, e.visitor, e.screen_width, dv.id, br.id, os.id, e.name, e.path,
        e.referrer_host, e.utm_source, e.utm_medium, e.utm_campaign, e.country, e.properties
    from analytics_events_old e
    join analytics_labels dv on dv.label = e.device
    join analytics_labels br on br.label = e.browser
    join analytics_labels os on os.label = e.os;
    drop table analytics_events_old;
end $$;
