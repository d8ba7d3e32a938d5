-- The revenue index again, carrying what a goal's revenue by source reads of each event (visitor,
-- goal name or path, amount, currency): the paying visitor days come from the index alone, without a
-- heap fetch per event (figures: benches/README.md, 2026-11-28, PostgreSQL revenue by source).
create index if not exists analytics_events_revenue_cover on analytics_events (project_id, ts)
    include (visitor, name, path, revenue_micros, revenue_currency)
    where revenue_currency is not null;
drop index if exists analytics_events_revenue;
