-- The listings' two costs at 100,000 entries (benches/README.md, "Feedback by customer value"):
-- the exact total, counted from a narrow index alone (one deduplicated key per project), and the
-- default `top` order, read from an index instead of sorting every entry by score.
create index feedback_live_by_project on feedback (project_id) where merged_into is null;
create index feedback_by_score on feedback
    (project_id, (upvotes - downvotes) desc, created_at desc, id desc) where merged_into is null;

-- An entry's MRR, written once: the sum over its upvoters' distinct companies. A vote's recount and
-- a customer's move to another company both set `feedback.mrr` from it.
create function feedback_mrr(entry uuid) returns double precision language sql stable as $$
    select coalesce(sum(c.mrr), 0) from companies c where c.id in (
        select e.company_id from feedback_votes v join end_users e on e.id = v.end_user_id
        where v.feedback_id = entry and v.value = 1)
$$;

-- The public listing's total under board visibility: counted from this index alone, whichever
-- boards the caller sees (benches/README.md: without it, a private board tripled the public p95).
create index feedback_public_by_board on feedback (project_id, board_id)
    where moderation = 'approved' and merged_into is null;
