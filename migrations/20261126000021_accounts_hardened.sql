-- Accounts, hardened (contract part 3). Password sign-ups confirm their address by email before an
-- identity provider may ever be linked to them (the pre-claim attack); setup, invites and providers
-- that vouch for the address make verified accounts.
alter table users add column email_verified boolean not null default false;
-- Accounts from before verification: admins, accounts without a password (made by a provider) or
-- linked to one, and accounts that accepted an invite for their address are taken as verified.
-- Other password accounts confirm from the dashboard's banner.
update users u set email_verified = true
where u.is_admin
   or u.password_hash is null
   or exists (select 1 from identities i where i.user_id = u.id)
   or exists (select 1 from invites v where v.email = u.email and v.accepted_at is not null);

-- 24-hour, single-use verification links; only the token's hash is stored.
create table email_verifications (
    token_hash bytea primary key,
    user_id uuid not null references users on delete cascade,
    created_at timestamptz not null default now(),
    expires_at timestamptz not null,
    used_at timestamptz
);
create index email_verifications_user_idx on email_verifications (user_id, created_at);

-- Sign-in attempts are counted before the password is checked (so concurrent tries cannot pass the
-- limit); a successful attempt removes its own row, so the table keeps failures only.
alter table login_failures add column id bigint generated always as identity primary key;
create index password_resets_user_created_idx on password_resets (user_id, created_at);

-- At most one reset email per account per 5 minutes: emailed links are told apart from admin-made ones.
alter table password_resets add column emailed boolean not null default false;

-- Rotating a project's identify secret ends its end users' sessions.
create index end_user_sessions_end_user_idx on end_user_sessions (end_user_id);
