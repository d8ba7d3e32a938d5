-- Search analytics read the clicks of recent searches (the minutes not rolled up yet) by the time
-- they were made: a click is always made after its search.
create index kb_search_clicks_by_time on kb_search_clicks (created_at);
