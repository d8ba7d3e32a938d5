-- A publishable key per project, beside the secret `api_key`: limited to the public scopes, safe in
-- browser code, and shown in project objects to every member (so it is stored as it is, not hashed).
alter table projects add column publishable_key text;
-- Existing projects get one: `pk_` and 64 hex characters (two random UUIDs' worth, 244 random bits).
update projects set publishable_key = 'pk_' || replace(gen_random_uuid()::text, '-', '')
                                            || replace(gen_random_uuid()::text, '-', '');
alter table projects alter column publishable_key set not null,
    add constraint projects_publishable_key_key unique (publishable_key);
