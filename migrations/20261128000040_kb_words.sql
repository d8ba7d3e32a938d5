-- Typo tolerance (#41): each index's words, so a search can find the words a misspelt query word
-- meant. A statement trigger adds the words of every chunk inserted (lowercase runs of letters and
-- digits, 4 to 40 characters); words are never removed (a word no chunk holds any more only
-- widens a query with a term that matches nothing). The trigram index finds the words near a
-- misspelt one; it is on an expression so that equality lookups take the primary key (pg_trgm's
-- GIN answers `=` too, and the planner picked it at forty times the cost).
create extension if not exists pg_trgm;

create table kb_words (
    index_id uuid not null references kb_indexes (id) on delete cascade,
    word text not null,
    primary key (index_id, word)
);
create index kb_words_trgm on kb_words using gin (lower(word) gin_trgm_ops);

create function kb_words_add() returns trigger language plpgsql as $$
begin
    -- In one order, so two inserts of the same words wait on each other instead of deadlocking.
    insert into kb_words (index_id, word)
    select distinct a.index_id, w
    from added a, regexp_split_to_table(lower(a.content), '[^[:alnum:]]+') w
    where length(w) between 4 and 40
    order by 1, 2
    on conflict do nothing;
    return null;
end $$;

create trigger kb_chunks_words after insert on kb_chunks
    referencing new table as added for each statement execute function kb_words_add();

insert into kb_words (index_id, word)
select distinct c.index_id, w
from kb_chunks c, regexp_split_to_table(lower(c.content), '[^[:alnum:]]+') w
where length(w) between 4 and 40
on conflict do nothing;

-- A keyword query in web-search syntax with its misspelt words widened: each `words[i]` (as the
-- configuration reads it) is replaced inside the parsed query by `alternatives[i]` (`word OR
-- correction ...`), so `quarterly pasword` reads quarterly & (pasword | password). Widening the
-- text instead would read (quarterly & pasword) | password: web search gives `or` the lower
-- precedence, and has no parentheses.
create function kb_query(cfg regconfig, query text, words text[], alternatives text[])
returns tsquery language plpgsql stable as $$
declare
    q tsquery := websearch_to_tsquery(cfg, query);
    target tsquery;
begin
    for i in 1 .. coalesce(array_length(words, 1), 0) loop
        target := plainto_tsquery(cfg, words[i]);
        if numnode(target) > 0 then
            q := ts_rewrite(q, target, websearch_to_tsquery(cfg, alternatives[i]));
        end if;
    end loop;
    return q;
end $$;
