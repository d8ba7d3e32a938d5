-- Search analytics by day: closed days are summed per index and query once (the worker's
-- housekeeping), so a read over 90 days reads rollups plus at most the days not yet rolled.
create table kb_search_daily (
    index_id uuid not null references kb_indexes on delete cascade,
    day date not null,
    query_key text not null,
    searches int not null,
    -- Searches with no result, and with at least one click.
    empty int not null,
    clicked int not null,
    -- The sum and count of the searches' top similarities (their mean: score_sum / scored).
    score_sum double precision not null,
    scored int not null,
    primary key (index_id, day, query_key)
);

-- Every day up to this one (UTC) is in kb_search_daily; later days are read from kb_searches.
create table kb_search_rolled (
    one boolean primary key default true check (one),
    until date not null
);
insert into kb_search_rolled (until) values ('1970-01-01');
