-- The few events that carry revenue, found without reading the range: a goal's revenue by source
-- first asks whether any of its events in the range carry revenue at all (most goals' do not).
-- On the partitioned table, so every day's partition has it (the roller's own per-day indexes are
-- named apart and dropped when a day closes; this one stays).
create index if not exists analytics_events_revenue on analytics_events (project_id, ts)
    where revenue_currency is not null;
