-- The roadmap in the knowledge base (#41): a document names the feedback entries it is about, and
-- search results and answers' citations carry their live title, status and score. Either side's
-- deletion takes the link with it.
create table kb_document_feedback (
    document_id uuid not null references kb_documents (id) on delete cascade,
    feedback_id uuid not null references feedback (id) on delete cascade,
    primary key (document_id, feedback_id)
);
create index kb_document_feedback_by_entry on kb_document_feedback (feedback_id);
