-- Webhook endpoints per project. The previous secret keeps signing for 24 hours after a rotation.
create table webhooks (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    url text not null,
    events text[] not null,
    description text,
    secret text not null,
    previous_secret text,
    previous_secret_until timestamptz,
    enabled boolean not null default true,
    created_at timestamptz not null default now()
);
create index webhooks_project_idx on webhooks (project_id, created_at);

-- The outbox and delivery log in one: a row per message to send (a webhook POST or an email), written in
-- the transaction of the change that causes it, so no event is lost or invented. apalis carries the work;
-- this row is the truth: a job whose row is not due or is leased does nothing, and a sweep re-queues rows
-- whose job was lost (Redis restarted) or whose worker died mid-attempt (lease expired).
create table deliveries (
    id uuid primary key,
    project_id uuid references projects on delete cascade,
    channel text not null check (channel in ('webhook', 'email')),
    webhook_id uuid references webhooks on delete cascade,
    event_id uuid not null,
    type text not null,
    payload jsonb not null,
    recipient text,
    status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
    attempts integer not null default 0,
    last_status_code integer,
    last_error text,
    next_attempt_at timestamptz not null default now(),
    lease_until timestamptz,
    queued_at timestamptz,
    created_at timestamptz not null default now(),
    check ((channel = 'webhook') = (webhook_id is not null)),
    check ((channel = 'email') = (recipient is not null))
);
create index deliveries_webhook_idx on deliveries (webhook_id, created_at desc);
create index deliveries_pending_idx on deliveries (next_attempt_at) where status = 'pending';
create index deliveries_finished_idx on deliveries (created_at) where status <> 'pending';

-- Which members get new-feedback and new-testimonial emails; null means the role's default (owners: yes).
alter table project_members
    add column notify_new_feedback boolean,
    add column notify_new_testimonial boolean;

-- Email addresses per project: changelog subscribers (double opt-in: confirmed_at) and the voters and
-- submitters who get status updates (confirmed by their own act). The token confirms and unsubscribes.
create table subscriptions (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    email text not null,
    kind text not null check (kind in ('changelog', 'updates')),
    token text not null unique,
    confirmed_at timestamptz,
    unsubscribed_at timestamptz,
    created_at timestamptz not null default now(),
    unique (project_id, kind, email)
);

-- Addresses whose SMTP answer was a permanent failure: no notifications or subscriptions go to them.
create table email_suppressions (
    email text primary key,
    reason text not null,
    created_at timestamptz not null default now()
);
