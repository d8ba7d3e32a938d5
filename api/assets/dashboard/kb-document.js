// Shipmate dashboard: one document of an index: its status, metadata and external id, and the
// chunks it was split into (in order), refreshed while it is being embedded.

import { cls, fmtNum, h, shortId, timeEl } from './dom.js';
import { ApiError, keyApi } from './api.js';
import { announce, busy, confirmDialog, later, pageHead, setLoading, setMain, setTitle, showError } from './ui.js';
import { navigate, projectPath } from './router.js';

/** What a document is called: its external id, else the name of the file it came from. */
export function docName(d) {
  const file = d.metadata && typeof d.metadata.filename === 'string' ? d.metadata.filename : '';
  return d.external_id || file;
}

function chunkList(chunks) {
  if (!chunks.length) return h('p', { class: 'muted' }, 'No chunks yet.');
  return h('ol', { class: 'results chunks', id: 'chunk-list' }, chunks.map((c, i) => {
    const n = typeof c.chunk_index === 'number' ? c.chunk_index : i;
    return h('li', { class: 'result', 'data-chunk': n },
      h('div', { class: 'result-head' },
        h('span', { class: 'score' }, `#${n}`),
        c.ready ? null : h('span', { class: 'muted small' }, 'waiting for its vector')),
      h('p', { class: 'result-text' }, c.content ?? c.chunk_content ?? ''));
  }));
}

/** /dashboard/p/<project>/knowledge/<index>/<document>. */
export async function screenDocument({ project, alive, index, docId }) {
  setLoading('Loading document\u2026');
  const base = `/v1/indexes/${encodeURIComponent(index.id)}/documents/${encodeURIComponent(docId)}`;
  const back = h('p', { class: 'small' }, h('a', { href: projectPath(project, 'knowledge', index.id), 'data-nav': '' }, `\u2190 ${index.name}`));
  let doc;
  try {
    doc = await keyApi(project, 'GET', base);
  } catch (e) {
    if (!alive()) return;
    if (e instanceof ApiError && e.status === 404) {
      setMain(back, pageHead('Document not found', null, project),
        h('section', { class: 'card' }, h('p', null, 'This document does not exist (it may have been deleted or replaced).')));
      return;
    }
    showError(e, 'Could not load the document');
    return;
  }
  if (!alive()) return;
  setTitle(`Document ${shortId(doc.id)}`, index.name, project.name);
  const statusBox = h('dl', { class: 'facts', id: 'document-facts' });
  const chunksBox = h('div', { id: 'document-chunks' });
  const del = h('button', { type: 'button', class: 'button-danger-quiet' }, 'Delete document');
  del.addEventListener('click', async () => {
    const ok = await confirmDialog({ title: 'Delete this document?', text: 'The document and all its chunks are removed from the index. This cannot be undone.', ok: 'Delete' });
    if (!ok) return;
    await busy(del, async () => {
      try {
        await keyApi(project, 'DELETE', base);
      } catch (e) {
        showError(e, 'Could not delete the document');
        return;
      }
      announce('Document deleted.');
      navigate(projectPath(project, 'knowledge', index.id));
    });
  });
  setMain(back,
    pageHead(docName(doc) || `Document ${shortId(doc.id)}`, doc.id, project, del),
    h('section', { class: 'card', 'aria-labelledby': 'doc-facts-title' }, h('h2', { id: 'doc-facts-title' }, 'Document'), statusBox),
    h('section', { class: 'card', 'aria-labelledby': 'doc-chunks-title' }, h('h2', { id: 'doc-chunks-title' }, 'Chunks'), chunksBox));

  function drawFacts() {
    const meta = doc.metadata && Object.keys(doc.metadata).length ? JSON.stringify(doc.metadata, null, 2) : '\u2014';
    statusBox.replaceChildren(
      h('dt', null, 'Status'), h('dd', null, h('span', { class: `badge status-${cls(doc.status)}`, 'data-doc-status': '' }, doc.status),
        doc.status === 'failed' && doc.error ? h('span', { class: 'small muted' }, ` ${doc.error}`) : null),
      h('dt', null, 'External ID'), h('dd', { class: 'mono', 'data-external-id': '' }, doc.external_id || '\u2014'),
      h('dt', null, 'Chunks'), h('dd', { 'data-chunk-count': '' }, fmtNum(doc.chunks_created)),
      h('dt', null, 'Uploaded'), h('dd', null, timeEl(doc.created_at)),
      h('dt', null, 'Metadata'), h('dd', null, h('pre', { class: 'json' }, meta)));
  }

  async function loadChunks() {
    try {
      const res = await keyApi(project, 'GET', `${base}/chunks`);
      if (!alive()) return;
      chunksBox.replaceChildren(chunkList((res && res.data) || []));
    } catch (e) {
      if (alive()) showError(e, 'Could not load the chunks');
    }
  }

  async function refresh() {
    try {
      doc = await keyApi(project, 'GET', base);
    } catch (e) {
      if (alive()) showError(e, 'Could not refresh the document');
      return;
    }
    if (!alive()) return;
    drawFacts();
    await loadChunks();
    if (doc.status === 'pending') later(refresh, 1000);
  }

  drawFacts();
  await loadChunks();
  if (doc.status === 'pending') later(refresh, 1000);
}
