-- Projects deleted whose analytics events an event store outside PostgreSQL (ClickHouse) still has
-- to delete: PostgreSQL's own events go with the project (foreign keys cascade), ClickHouse's are
-- deleted by the workers' upkeep, which then forgets the project here. Written by a trigger, so
-- every deletion is recorded in the deleting transaction, whoever deletes.
create table analytics_forgotten_projects (
    project_id uuid primary key,
    deleted_at timestamptz not null default now()
);

create function analytics_forget_project() returns trigger language plpgsql as $$
begin
    insert into analytics_forgotten_projects (project_id) values (old.id) on conflict do nothing;
    return old;
end
$$;

create trigger analytics_forget_project after delete on projects
    for each row execute function analytics_forget_project();
