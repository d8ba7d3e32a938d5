-- Traffic alerts, checked by the workers' schedule every 5 minutes over the last hour. `firing`
-- holds an alert that went off until its condition clears, so it fires once per episode (the
-- update that sets it is the claim: two workers never both fire it). Members opt in to the email.
create table analytics_alerts (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    kind text not null check (kind in ('traffic_spike', 'traffic_drop', 'goal')),
    threshold int8 not null check (threshold >= 0),
    goal_id uuid references analytics_goals on delete cascade,
    firing boolean not null default false,
    -- The figure of the last check, and when it last went off.
    value int8,
    fired_at timestamptz,
    created_at timestamptz not null default now(),
    check ((kind = 'goal') = (goal_id is not null))
);
create index analytics_alerts_project on analytics_alerts (project_id, created_at);

alter table project_members add column notify_analytics_alerts boolean not null default false;

-- The `analytics.alert` webhook event (the lists stay those of the Rust enum: core/tests/enums.rs).
alter table webhooks drop constraint webhooks_events_check, add constraint webhooks_events_check check (
    events <@ array['feedback.created', 'feedback.status_changed', 'feedback.merged', 'comment.created',
                    'testimonial.created', 'testimonial.approved', 'document.ready', 'document.failed',
                    'changelog.published', 'analytics.alert', '*']
);
alter table deliveries drop constraint deliveries_type_check, add constraint deliveries_type_check check (
    channel <> 'webhook' or type in ('feedback.created', 'feedback.status_changed', 'feedback.merged',
        'comment.created', 'testimonial.created', 'testimonial.approved', 'document.ready',
        'document.failed', 'changelog.published', 'analytics.alert', 'ping')
);
