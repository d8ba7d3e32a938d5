-- Engagement events (`sm.plus.js`: scroll depth and engaged time when a page is hidden or left)
-- are read per page for the `pages` read's medians. A partial index finds them without reading the
-- other events, and costs nothing to the inserts of those (only engagement rows enter it).
create index analytics_events_engagement on analytics_events (project_id, path, ts)
    where name = 'engagement';
