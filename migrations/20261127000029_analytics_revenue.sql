-- Revenue on events: whole millionths of the unit (exact sums, never a float) and the ISO 4217
-- code; both null for the events without. Nullable columns added without a default: no rewrite of
-- the existing partitions. Goals may name a currency: their rows then report the revenue in it.
alter table analytics_events
    add column revenue_micros int8,
    add column revenue_currency text;
alter table analytics_goals add column currency text;
