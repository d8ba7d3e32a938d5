-- Weekly summaries (ISO weeks, Monday to Sunday): the sums of a complete week's daily summary rows,
-- every dimension but `hour`. A read over 90 days adds about 12 weeks and the days at its edges
-- instead of 90 days: a page breakdown adds 25,000 rows instead of 90,000 at 1,000 pages a day.
-- The roller writes a week in the transaction that completes its Sunday, and again whenever a day
-- of a complete week is summarised afresh (`rollup::weekly`).
create table analytics_weekly (
    project_id uuid not null references projects on delete cascade,
    dim text not null,
    week date not null,
    value text not null,
    views bigint not null,
    visitors bigint not null,
    primary key (project_id, dim, week, value)
);

-- The weeks already complete.
insert into analytics_weekly (project_id, dim, week, value, views, visitors)
select d.project_id, d.dim, date_trunc('week', d.day)::date, d.value, sum(d.views), sum(d.visitors)
from analytics_daily d
join analytics_rollups r on r.day = date_trunc('week', d.day)::date + 6
    and r.through >= (r.day + 1)::timestamp at time zone 'UTC'
where d.dim <> 'hour'
group by 1, 2, 3, 4;
