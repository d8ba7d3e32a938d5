-- Search analytics' rollups in blocks of 1, 2, 4, ... 128 days, each starting on a day whose number
-- (days since 1970-01-01) is a multiple of its length: a read over any range sums a few whole
-- blocks (at most two per length) instead of one row per query per day. And rolled up to a minute
-- ago rather than to the last closed day, so a read takes only the last minutes from the log.
create table kb_search_rollups (
    index_id uuid not null references kb_indexes on delete cascade,
    -- The block holds 2^span days from `start`.
    span smallint not null check (span between 0 and 7),
    start date not null,
    query_key text not null,
    searches bigint not null,
    -- Searches with no result, and with at least one click.
    empty bigint not null,
    clicked bigint not null,
    -- The sum and count of the searches' top similarities (their mean: score_sum / scored).
    score_sum double precision not null,
    scored bigint not null,
    -- The figures ride in the index: a read is an index-only scan of a few ranges.
    primary key (index_id, span, start, query_key)
        include (searches, empty, clicked, score_sum, scored)
);

insert into kb_search_rollups (index_id, span, start, query_key, searches, empty, clicked, score_sum, scored)
select d.index_id, k, d.day - ((d.day - date '1970-01-01') % (1 << k)), d.query_key,
       sum(d.searches), sum(d.empty), sum(d.clicked), sum(d.score_sum), sum(d.scored)
from kb_search_daily d cross join generate_series(0, 7) k
group by 1, 2, 3, 4;

drop table kb_search_daily;

-- Every search logged before this moment is in kb_search_rollups; later ones are read from kb_searches.
alter table kb_search_rolled add column rolled_to timestamptz;
update kb_search_rolled set rolled_to = (until + 1)::timestamp at time zone 'utc';
alter table kb_search_rolled alter column rolled_to set not null;
alter table kb_search_rolled drop column until;
