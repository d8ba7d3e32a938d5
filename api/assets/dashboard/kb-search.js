// Shipmate dashboard: an index's search playground: the query, the mode (vector, keyword,
// hybrid), a metadata filter of key/value rows, and the results with score, chunk index and a
// link to the document they come from.

import { badge, field, formErr, h, options, plural, shortId, statusLabel } from './dom.js';
import { keyApi } from './api.js';
import { announce, busy, clearFormErrors, showFormError } from './ui.js';
import { projectPath } from './router.js';

const MODES = [
  ['vector', 'Vector (meaning)'],
  ['keyword', 'Keyword (exact words)'],
  ['hybrid', 'Hybrid (both, rank-fused)'],
];
const SCORE_TITLES = {
  vector: 'Cosine similarity',
  keyword: 'Full-text rank',
  hybrid: 'Reciprocal rank fusion score',
};

/**
 * A filter value as typed: `true`, `false` and numbers as JSON, anything else as a string, and
 * `a, b` (comma-separated) as any of those values.
 */
function filterValue(text) {
  const one = (t) => {
    const s = t.trim();
    if (s === 'true' || s === 'false') return s === 'true';
    if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s);
    return s;
  };
  const parts = text.split(',').map((t) => t.trim()).filter(Boolean);
  return parts.length > 1 ? parts.map(one) : one(text);
}

/** The filter editor: rows of key and value, added and removed; `read()` gives the filter object. */
function filterEditor() {
  const rows = h('div', { class: 'filter-rows', id: 'search-filter-rows' });
  const add = h('button', { type: 'button', class: 'button-secondary button-small', id: 'add-filter' }, 'Add filter');
  function addRow(key = '', value = '') {
    const n = rows.children.length + 1;
    const k = h('input', { type: 'text', class: 'filter-key', 'aria-label': `Filter ${n} key`, placeholder: 'key', value: key, autocomplete: 'off' });
    const v = h('input', { type: 'text', class: 'filter-value', 'aria-label': `Filter ${n} value`, placeholder: 'value (a, b for either)', value, autocomplete: 'off' });
    const remove = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'aria-label': `Remove filter ${n}` }, 'Remove');
    const row = h('div', { class: 'filter-row' }, k, v, remove);
    remove.addEventListener('click', () => { row.remove(); add.focus(); });
    rows.append(row);
    k.focus();
  }
  add.addEventListener('click', () => addRow());
  const box = h('fieldset', { class: 'filter-editor' },
    h('legend', null, 'Metadata filter'),
    h('p', { class: 'hint' }, 'Only documents whose metadata has every key with that value.'),
    rows, add, h('p', { class: 'field-err', 'data-err-for': 'filter', 'data-label': 'Filter' }));
  function read() {
    const filter = {};
    for (const row of rows.querySelectorAll('.filter-row')) {
      const key = row.querySelector('.filter-key').value.trim();
      const value = row.querySelector('.filter-value').value;
      if (!key && !value.trim()) continue;
      if (!key) return { error: 'every row needs a key' };
      filter[key] = filterValue(value);
    }
    return { filter };
  }
  return { box, read };
}

/** The feedback entries a result's document is about, as they are now (the roadmap in the knowledge base). */
export function linkedFeedback(entries) {
  if (!Array.isArray(entries) || !entries.length) return null;
  return h('ul', { class: 'linked-feedback', 'aria-label': 'Feedback this document is about' },
    entries.map((f) => h('li', { 'data-feedback-id': f.id },
      badge('status', f.status, statusLabel(f.status)), ' ', f.title,
      h('span', { class: 'muted small' }, ` \u00b7 score ${f.score}`))));
}

function resultItem(project, index, r, mode) {
  const score = typeof r.score === 'number' ? r.score.toFixed(mode === 'vector' ? 3 : 4) : String(r.score);
  const docLink = h('a', { href: projectPath(project, 'knowledge', index.id, r.document_id), 'data-nav': '', title: r.document_id }, shortId(r.document_id));
  return h('li', { class: 'result' },
    h('div', { class: 'result-head' },
      h('span', { class: 'score', 'data-score': '', title: SCORE_TITLES[mode] || 'Score' }, score),
      h('span', null, 'Document ', docLink),
      typeof r.chunk_index === 'number' ? h('span', { class: 'muted small', 'data-chunk-index': r.chunk_index }, `chunk ${r.chunk_index}`) : null,
      r.metadata && Object.keys(r.metadata).length ? h('span', { class: 'json' }, JSON.stringify(r.metadata)) : null),
    h('p', { class: 'result-text' }, r.chunk_content),
    linkedFeedback(r.feedback));
}

/** The search playground card for `index`; `alive()` says whether the screen is still shown. */
export function searchCard(project, index, alive) {
  const base = `/v1/indexes/${encodeURIComponent(index.id)}`;
  const resultsBox = h('div', { id: 'search-results', 'aria-live': 'polite' });
  const query = h('input', { type: 'search', name: 'query', autocomplete: 'off', maxlength: '2000' });
  const topK = h('input', { type: 'number', name: 'top_k', min: '1', max: '20', step: '1', value: '5', inputmode: 'numeric' });
  const mode = h('select', { name: 'mode' }, options(MODES, 'vector'));
  const filters = filterEditor();
  const searchBtn = h('button', { type: 'submit' }, 'Search');
  const form = h('form', { id: 'search-form', role: 'search', novalidate: '', 'aria-label': `Search ${index.name}` },
    h('div', { class: 'field-row' },
      field({ id: 'search-query', label: 'Query', control: query }),
      field({ id: 'search-topk', label: 'Results (top_k)', control: topK, className: 'field-narrow' })),
    field({ id: 'search-mode', label: 'Mode', control: mode }),
    filters.box,
    formErr(),
    searchBtn);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    const k = Number(topK.value || 5);
    const { filter, error } = filters.read();
    if (error) { form.querySelector('[data-err-for="filter"]').textContent = `Filter: ${error}.`; return; }
    const body = { query: query.value, top_k: Number.isFinite(k) ? k : 5, mode: mode.value };
    if (Object.keys(filter).length) body.filter = filter;
    await busy(searchBtn, async () => {
      let res;
      try {
        res = await keyApi(project, 'POST', `${base}/search`, { body });
      } catch (e) {
        showFormError(form, e);
        return;
      }
      if (!alive()) return;
      const results = res.results || [];
      announce(results.length ? `${plural(results.length, 'result', 'results')}.` : 'No results.');
      resultsBox.replaceChildren(results.length
        ? h('ol', { class: 'results' }, results.map((r) => resultItem(project, index, r, body.mode)))
        : h('p', { class: 'muted' }, 'No matching chunks. Documents are searchable once their status is ready.'));
    });
  });
  return h('section', { class: 'card', 'aria-labelledby': 'search-title' }, h('h2', { id: 'search-title' }, 'Search playground'), form, resultsBox);
}
