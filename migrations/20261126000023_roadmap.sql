-- The roadmap shows what the team accepted (contract part 3, "The first hour"). Entries from the
-- secret key or a member start on it; public submissions wait until a member puts them on it or
-- changes their status. Existing entries were on the roadmap already, so they stay on it.
alter table feedback add column on_roadmap boolean not null default true;
alter table feedback alter column on_roadmap set default false;
