-- Boards: a project's entries split by who may see them (public, private to the team, or a
-- segment of end users by their identify token's attributes). Every project has one default
-- board, `feedback`, holding what existed before boards and whatever is submitted without one.
create table feedback_boards (
    id uuid primary key,
    project_id uuid not null references projects on delete cascade,
    name text not null,
    slug text not null,
    visibility text not null default 'public'
        constraint feedback_boards_visibility_check check (visibility in ('public', 'private', 'segment')),
    -- {"attribute": value, ...}: every pair must match the end user's attributes.
    segment jsonb,
    is_default boolean not null default false,
    created_at timestamptz not null default now(),
    constraint feedback_boards_slug unique (project_id, slug),
    constraint feedback_boards_segment_check check ((visibility = 'segment') = (segment is not null))
);
create unique index feedback_boards_one_default on feedback_boards (project_id) where is_default;

insert into feedback_boards (id, project_id, name, slug, is_default)
select gen_random_uuid(), id, 'Feedback', 'feedback', true from projects;

-- The invariant lives with the data: however a project row is made (the api, an import, a test's
-- raw insert), it has its default board.
create function feedback_boards_default() returns trigger language plpgsql as $$
begin
    insert into feedback_boards (id, project_id, name, slug, is_default)
    values (gen_random_uuid(), new.id, 'Feedback', 'feedback', true);
    return new;
end $$;
create trigger projects_default_board after insert on projects
    for each row execute function feedback_boards_default();

alter table feedback add column board_id uuid references feedback_boards;
update feedback f set board_id = b.id from feedback_boards b
    where b.project_id = f.project_id and b.is_default;

-- An entry written without a board (older clients, raw inserts) lands on the default board.
create function feedback_default_board() returns trigger language plpgsql as $$
begin
    if new.board_id is null then
        select id into new.board_id from feedback_boards
        where project_id = new.project_id and is_default;
    end if;
    return new;
end $$;
create trigger feedback_default_board before insert on feedback
    for each row execute function feedback_default_board();

alter table feedback alter column board_id set not null;
create index feedback_board_idx on feedback (board_id);
