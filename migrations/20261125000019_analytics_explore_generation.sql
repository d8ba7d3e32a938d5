-- Filtered reads keep each day's events in the api's memory while they cannot change
-- (`analytics::explore`). Storing events behind a day's seal marks it dirty and bumps its
-- generation in the same transaction, so a kept copy of an older generation is known stale.
alter table analytics_rollups add column generation int8 not null default 0;
