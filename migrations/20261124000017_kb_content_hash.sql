-- What a document version was made from (its text and content type, hashed): an upsert sending the
-- same again is answered without chunking it, the costly part of a 100 KB re-sync. Null for
-- versions stored before; their next upsert compares chunks instead, and stores it.
alter table kb_documents add column content_hash text;
