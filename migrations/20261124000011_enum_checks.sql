-- Every enum column lists the values of its Rust enum (shipmate-types), so a value the code cannot
-- read back never gets stored; shared/tests/enums.rs compares each list with its enum.

-- A feedback entry's status is one of its type's set.
alter table feedback add constraint feedback_status_check check (
    (type = 'feature' and status in ('planned', 'in_progress', 'shipped', 'cancelled'))
    or (type <> 'feature' and status in ('new', 'in_progress', 'done', 'dismissed'))
);

alter table api_keys add constraint api_keys_scopes_check check (
    scopes <@ array['analytics:write', 'feedback:write', 'testimonials:read', 'testimonials:write',
                    'changelog:read', 'kb:read', 'kb:write']
);

alter table webhooks add constraint webhooks_events_check check (
    events <@ array['feedback.created', 'feedback.status_changed', 'feedback.merged', 'comment.created',
                    'testimonial.created', 'testimonial.approved', 'document.ready', 'document.failed',
                    'changelog.published', '*']
);

-- Webhook deliveries carry an event type; email deliveries the kind of message.
alter table deliveries add constraint deliveries_type_check check (
    channel <> 'webhook' or type in ('feedback.created', 'feedback.status_changed', 'feedback.merged',
        'comment.created', 'testimonial.created', 'testimonial.approved', 'document.ready',
        'document.failed', 'changelog.published', 'ping')
);
