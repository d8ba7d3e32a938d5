// Shipmate dashboard: a project's knowledge base: the indexes (the first picks the project's
// embedding model), and one index's page with the upload forms (kb-upload.js), the search
// playground (kb-search.js) and its documents, polled while they are being embedded; a document
// opens on a page of its own (kb-document.js). Calls go through the session with X-Project-Id.

import { $, cls, field, fmtNum, formErr, h, options, plural, shortId, timeEl } from './dom.js';
import { api, keyApi, q } from './api.js';
import { announce, busy, clearFormErrors, confirmDialog, later, pageHead, setLoading, setMain, setTitle, showError, showFormError, stopTimers } from './ui.js';
import { navigate, projectPath } from './router.js';
import { searchCard } from './kb-search.js';
import { analyticsCard } from './kb-analytics.js';
import { askCard } from './kb-ask.js';
import { gapsCard } from './kb-gaps.js';
import { uploadCard } from './kb-upload.js';
import { docName, screenDocument } from './kb-document.js';

let modelList = null; // GET /v1/indexes/models: the same for every project, fetched once

async function loadModels() {
  if (!modelList) {
    const res = await api('GET', '/v1/indexes/models');
    modelList = res.data || [];
  }
  return modelList;
}

export async function screenKnowledge(ctx) {
  const { project, alive } = ctx;
  if (ctx.sub) { await screenIndex(ctx); return; }
  setTitle('Knowledge base', project.name);
  const listBox = h('div', { 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading indexes\u2026'));
  const formBox = h('div');
  setMain(
    pageHead('Knowledge base', `Document indexes with semantic search. Calls go through your session.`, project),
    h('div', { class: 'grid-2' },
      h('section', { class: 'card', 'aria-labelledby': 'indexes-title' }, h('h2', { id: 'indexes-title' }, 'Indexes'), listBox),
      formBox),
    gapsCard(project, alive));

  let indexes;
  let models;
  try {
    [indexes, models] = await Promise.all([
      keyApi(project, 'GET', '/v1/indexes').then((r) => r.data || []),
      loadModels(),
    ]);
  } catch (e) {
    if (!alive()) return;
    listBox.replaceChildren(h('p', { class: 'muted' }, 'Indexes could not be loaded.'));
    showError(e, 'Could not load the knowledge base');
    return;
  }
  if (!alive()) return;
  listBox.removeAttribute('aria-busy');
  drawList();
  formBox.replaceChildren(createIndexCard());

  function drawList() {
    if (!indexes.length) {
      listBox.replaceChildren(h('p', { class: 'muted' }, 'No indexes yet. The first index also picks the embedding model for the whole project.'));
      return;
    }
    listBox.replaceChildren(h('div', { class: 'table-wrap' }, h('table', { id: 'index-table' },
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Model'),
        h('th', { scope: 'col', class: 'num' }, 'Docs'), h('th', { scope: 'col', class: 'num' }, 'Chunks'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, indexes.map((ix) => {
        const del = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'aria-label': `Delete index ${ix.name}` }, 'Delete');
        del.addEventListener('click', async () => {
          const ok = await confirmDialog({ title: `Delete the index \u201c${ix.name}\u201d?`, text: 'All its documents and chunks are deleted. This cannot be undone.', ok: 'Delete index' });
          if (!ok) return;
          await busy(del, async () => {
            try {
              await keyApi(project, 'DELETE', `/v1/indexes/${encodeURIComponent(ix.id)}`);
            } catch (e) {
              showError(e, 'Could not delete the index');
              return;
            }
            indexes = indexes.filter((x) => x.id !== ix.id);
            drawList();
            formBox.replaceChildren(createIndexCard());
            announce(`Deleted the index \u201c${ix.name}\u201d.`);
            $('h1').focus();
          });
        });
        return h('tr', { 'data-index': ix.id },
          h('td', { class: 'cell-clip' }, h('a', { href: projectPath(project, 'knowledge', ix.id), 'data-nav': '' }, ix.name)),
          h('td', { class: 'mono small cell-clip' }, ix.embedding_model),
          h('td', { class: 'num' }, fmtNum(ix.document_count),
            ix.documents_pending > 0 ? h('div', { class: 'small muted' }, `${fmtNum(ix.documents_ready)} ready`) : null),
          h('td', { class: 'num' }, fmtNum(ix.chunk_count)),
          h('td', { class: 'num' }, del));
      })))));
  }

  function createIndexCard() {
    const locked = indexes.length ? indexes[0].embedding_model : null;
    const available = models.filter((m) => m.available);
    const modelOptions = locked
      ? [[locked, locked]]
      : available.map((m) => [m.id, `${m.id} (${m.dimensions} dims)`]);
    const name = h('input', { type: 'text', name: 'name', maxlength: '200', autocomplete: 'off' });
    const model = h('select', { name: 'embedding_model', disabled: Boolean(locked) || !modelOptions.length }, options(modelOptions, locked || (modelOptions[0] && modelOptions[0][0])));
    const externalId = h('input', { type: 'text', name: 'external_id', maxlength: '200', autocomplete: 'off' });
    const submit = h('button', { type: 'submit', disabled: !modelOptions.length }, 'Create index');
    const hint = locked
      ? `Locked: the project\u2019s first index chose ${locked}, and every index uses the same model.`
      : (modelOptions.length ? 'Your first index locks the project to this model.' : 'No embedding model is available on this server. Install a local model or configure a provider key.');
    // The option says id and size only (a long description was cut off in the closed select and
    // repeated both); the chosen model's description stands under it in full.
    const about = h('p', { class: 'hint', id: 'index-model-about' });
    const describe = () => { const m = models.find((x) => x.id === model.value); about.textContent = m && m.description ? m.description : ''; };
    model.addEventListener('change', describe);
    describe();
    const form = h('form', { id: 'create-index', novalidate: '' },
      field({ id: 'index-name', label: 'Name', control: name }),
      field({ id: 'index-model', label: 'Embedding model', control: model, hint }),
      about,
      field({ id: 'index-external', label: 'External ID (optional)', control: externalId }),
      formErr(),
      submit);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      clearFormErrors(form);
      await busy(submit, async () => {
        const body = { name: name.value };
        if (model.value) body.embedding_model = model.value;
        if (externalId.value.trim()) body.external_id = externalId.value.trim();
        let ix;
        try {
          ix = await keyApi(project, 'POST', '/v1/indexes', { body });
        } catch (e) {
          showFormError(form, e, { conflictField: e.code === 'embedding_model_locked' ? 'embedding_model' : 'name' });
          return;
        }
        announce(`Index \u201c${ix.name}\u201d created.`);
        navigate(projectPath(project, 'knowledge', ix.id));
      });
    });
    return h('section', { class: 'card', 'aria-labelledby': 'new-index-title' }, h('h2', { id: 'new-index-title' }, 'New index'), form);
  }
}

async function screenIndex(ctx) {
  const { project, alive, sub } = ctx;
  setLoading('Loading index\u2026');
  let index;
  try {
    const list = (await keyApi(project, 'GET', '/v1/indexes')).data || [];
    index = list.find((x) => x.id === sub);
  } catch (e) {
    if (alive()) showError(e, 'Could not load the index');
    return;
  }
  if (!alive()) return;
  if (!index) {
    setMain(pageHead('Index not found', null, project),
      h('section', { class: 'card' }, h('p', null, 'This index does not exist (it may have been deleted).'),
        h('p', null, h('a', { href: projectPath(project, 'knowledge'), 'data-nav': '' }, 'Back to the knowledge base'))));
    return;
  }
  if (ctx.sub2) { await screenDocument({ project, alive, index, docId: ctx.sub2 }); return; }
  setTitle(index.name, 'Knowledge base', project.name);
  const base = `/v1/indexes/${encodeURIComponent(index.id)}`;
  let page = 1;
  const docsBox = h('div', { id: 'documents' });
  const progressBox = h('div', { id: 'index-progress', 'aria-live': 'polite' });
  const pager = h('div', { class: 'pager' });
  const upload = uploadCard(project, index, async () => { page = 1; await loadDocs(); });

  const delBtn = h('button', { type: 'button', class: 'button-danger-quiet' }, 'Delete index');
  delBtn.addEventListener('click', async () => {
    const ok = await confirmDialog({ title: `Delete the index \u201c${index.name}\u201d?`, text: 'All its documents and chunks are deleted. This cannot be undone.', ok: 'Delete index' });
    if (!ok) return;
    await busy(delBtn, async () => {
      try {
        await keyApi(project, 'DELETE', base);
      } catch (e) {
        showError(e, 'Could not delete the index');
        return;
      }
      announce(`Deleted the index \u201c${index.name}\u201d.`);
      navigate(projectPath(project, 'knowledge'));
    });
  });

  setMain(
    h('p', { class: 'small' }, h('a', { href: projectPath(project, 'knowledge'), 'data-nav': '' }, '\u2190 All indexes')),
    pageHead(index.name, `${index.embedding_model} \u00b7 ${index.dimensions} dimensions${index.external_id ? ` \u00b7 external ID ${index.external_id}` : ''}`, project, delBtn),
    h('div', { class: 'grid-2' },
      upload,
      searchCard(project, index, alive)),
    askCard(project, index, alive),
    h('section', { class: 'card', 'aria-labelledby': 'docs-title' }, h('h2', { id: 'docs-title' }, 'Documents'), progressBox, docsBox, pager),
    analyticsCard(project, index, alive),
  );

  async function loadDocs() {
    stopTimers(); // at most one poll loop, whoever calls
    let res;
    let counts;
    try {
      [res, counts] = await Promise.all([keyApi(project, 'GET', `${base}/documents?${q({ page })}`), keyApi(project, 'GET', base)]);
    } catch (e) {
      if (alive()) showError(e, 'Could not load the documents');
      return;
    }
    if (!alive()) return;
    drawProgress(counts);
    drawDocs(res);
    // Poll while anything is still being embedded (a bulk load's progress moves on its own).
    if (counts.documents_pending > 0 || (res.data || []).some((d) => d.status === 'pending')) later(loadDocs, 1000);
  }

  // Documents ready of all: a bar while some are still being embedded, the counts always.
  function drawProgress(c) {
    const total = Number(c.document_count) || 0;
    const ready = Number(c.documents_ready) || 0;
    const text = `${fmtNum(ready)} of ${plural(total, 'document', 'documents')} ready`
      + (c.documents_pending > 0 ? ` \u00b7 ${fmtNum(c.documents_pending)} being embedded` : '')
      + (c.documents_failed > 0 ? ` \u00b7 ${fmtNum(c.documents_failed)} failed` : '');
    progressBox.replaceChildren(
      c.documents_pending > 0 ? h('progress', { max: String(total), value: String(ready), 'aria-label': 'Documents ready' }) : '',
      h('p', { class: 'small muted', 'data-progress': '' }, total ? text : ''));
  }

  function drawDocs(res) {
    const docs = res.data || [];
    const focusKey = document.activeElement && docsBox.contains(document.activeElement) ? document.activeElement.getAttribute('data-focus-key') : null;
    if (!docs.length) {
      docsBox.replaceChildren(h('p', { class: 'muted' }, 'No documents yet.'));
    } else {
      docsBox.replaceChildren(h('div', { class: 'table-wrap' }, h('table', { id: 'document-table' },
        h('thead', null, h('tr', null,
          h('th', { scope: 'col' }, 'Document'), h('th', { scope: 'col' }, 'Status'), h('th', { scope: 'col', class: 'num' }, 'Chunks'),
          h('th', { scope: 'col' }, 'Metadata'), h('th', { scope: 'col' }, 'Uploaded'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
        h('tbody', null, docs.map(docRow)))));
    }
    const total = Number(res.total) || 0;
    const per = Number(res.per_page) || 20;
    const pages = Math.max(1, Math.ceil(total / per));
    if (pages <= 1) { pager.replaceChildren(total ? h('span', null, plural(total, 'document', 'documents')) : ''); }
    else {
      const prev = h('button', { type: 'button', class: 'button-secondary button-small', disabled: page <= 1, 'data-focus-key': 'prev' }, 'Previous');
      const next = h('button', { type: 'button', class: 'button-secondary button-small', disabled: page >= pages, 'data-focus-key': 'next' }, 'Next');
      prev.addEventListener('click', () => { page -= 1; stopTimers(); loadDocs(); });
      next.addEventListener('click', () => { page += 1; stopTimers(); loadDocs(); });
      pager.replaceChildren(h('span', null, `Page ${page} of ${pages} \u00b7 ${plural(total, 'document', 'documents')}`), prev, next);
    }
    if (focusKey) {
      const again = docsBox.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`);
      if (again) again.focus();
    }
  }

  function docRow(d) {
    const del = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'data-focus-key': `del-${d.id}`, 'aria-label': `Delete document ${shortId(d.id)}` }, 'Delete');
    del.addEventListener('click', async () => {
      const ok = await confirmDialog({ title: 'Delete this document?', text: 'The document and all its chunks are removed from the index. This cannot be undone.', ok: 'Delete' });
      if (!ok) return;
      await busy(del, async () => {
        try {
          await keyApi(project, 'DELETE', `${base}/documents/${encodeURIComponent(d.id)}`);
        } catch (e) {
          showError(e, 'Could not delete the document');
          return;
        }
        announce('Document deleted.');
        stopTimers();
        await loadDocs();
        $('#docs-title').setAttribute('tabindex', '-1');
        $('#docs-title').focus();
      });
    });
    const meta = d.metadata && typeof d.metadata === 'object' && Object.keys(d.metadata).length ? JSON.stringify(d.metadata) : '\u2014';
    return h('tr', { 'data-doc': d.id },
      h('td', null, h('a', { href: projectPath(project, 'knowledge', index.id, d.id), 'data-nav': '', title: d.id },
        docName(d) || h('code', null, shortId(d.id)))),
      h('td', null, h('span', { class: `badge status-${cls(d.status)}`, 'data-doc-status': '' }, d.status),
        d.status === 'failed' && d.error ? h('div', { class: 'small muted' }, d.error) : null),
      h('td', { class: 'num' }, fmtNum(d.chunks_created)),
      h('td', { class: 'json cell-clip' }, meta),
      h('td', null, timeEl(d.created_at)),
      h('td', { class: 'num' }, del));
  }

  docsBox.append(h('p', { class: 'loading' }, 'Loading documents\u2026'));
  await loadDocs();
}
