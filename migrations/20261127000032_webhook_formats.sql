-- Chat webhooks: a webhook posts the signed JSON event (`standard`) or an incoming-webhook message
-- of Slack or Discord.
alter table webhooks
    add column format text not null default 'standard'
        constraint webhooks_format_check check (format in ('standard', 'slack', 'discord'));
