-- Personal access tokens (contract part 3, "The first hour"): a named session for scripts and the
-- CLI, made from a signed-in session, listed by name and revoked one by one. Sign-in sessions have
-- no name.
alter table sessions add column name text;
