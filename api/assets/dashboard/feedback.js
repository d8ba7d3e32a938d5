// Shipmate dashboard: a project's feedback, filtered and sorted, with each entry's status and
// deletion.

import { $, badge, cls, field, fmtNum, h, options, plural, statusLabel, timeEl } from './dom.js';
import { api, q } from './api.js';
import { announce, busy, confirmDialog, pageHead, setMain, setTitle, showError } from './ui.js';

const FEEDBACK_TYPES = { bug: 'Bug', feature: 'Feature request', feedback: 'Feedback' };
const STATUSES_FOR = {
  bug: ['new', 'in_progress', 'done', 'dismissed'],
  feedback: ['new', 'in_progress', 'done', 'dismissed'],
  feature: ['planned', 'in_progress', 'shipped', 'cancelled'],
};
const ALL_FEEDBACK_STATUSES = ['new', 'planned', 'in_progress', 'done', 'shipped', 'dismissed', 'cancelled'];

// The filters stay as they were when the owner comes back to the list.
const filter = { type: '', status: '', sort: 'new' };

export async function screenFeedback(ctx) {
  const { project, alive } = ctx;
  setTitle('Feedback', project.name);
  const f = filter;
  const count = h('p', { class: 'muted', id: 'feedback-count', 'aria-live': 'polite' });
  const listBox = h('div');
  const typeSel = h('select', { name: 'type', value: f.type },
    options([['', 'All types'], ...Object.entries(FEEDBACK_TYPES)], f.type));
  const statusSel = h('select', { name: 'status', value: f.status },
    options([['', 'All statuses'], ...ALL_FEEDBACK_STATUSES.map((s) => [s, statusLabel(s)])], f.status));
  const sortSel = h('select', { name: 'sort', value: f.sort }, options([['new', 'Newest first'], ['top', 'Top voted']], f.sort));
  const filters = h('form', { class: 'card filters', role: 'search', 'aria-label': 'Filter feedback' },
    field({ id: 'fb-filter-type', label: 'Type', control: typeSel }),
    field({ id: 'fb-filter-status', label: 'Status', control: statusSel }),
    field({ id: 'fb-filter-sort', label: 'Sort', control: sortSel }));
  filters.addEventListener('submit', (ev) => ev.preventDefault());
  filters.addEventListener('change', () => {
    f.type = typeSel.value; f.status = statusSel.value; f.sort = sortSel.value;
    load();
  });

  setMain(
    pageHead('Feedback', null, project, h('a', { class: 'button button-secondary', href: `/f/${project.slug}`, target: '_blank', rel: 'noopener' }, 'Open public board')),
    filters, count, listBox);

  let entries = [];
  const updateCount = () => {
    const filtered = f.type || f.status;
    count.textContent = `${plural(entries.length, 'entry', 'entries')}${filtered ? ' matching these filters' : ''}`;
  };

  async function load() {
    listBox.setAttribute('aria-busy', 'true');
    try {
      const res = await api('GET', `/v1/feedback?${q({ project_id: project.id, type: f.type, status: f.status, sort: f.sort })}`);
      if (!alive()) return;
      entries = res.data || [];
    } catch (e) {
      if (!alive()) return;
      listBox.removeAttribute('aria-busy');
      showError(e, 'Could not load feedback');
      return;
    }
    listBox.removeAttribute('aria-busy');
    updateCount();
    if (!entries.length) {
      listBox.replaceChildren(h('div', { class: 'card empty' }, h('p', null,
        f.type || f.status ? 'No feedback matches these filters.' : 'No feedback yet. Entries sent with the SDK or the API show up here.')));
      return;
    }
    listBox.replaceChildren(h('ul', { class: 'records', id: 'feedback-list' }, entries.map(entryItem)));
  }

  function entryItem(e) {
    const statuses = [...(STATUSES_FOR[e.type] || [])];
    if (!statuses.includes(e.status)) statuses.unshift(e.status);
    const selId = `fb-status-${e.id}`;
    const statusBadge = badge('status', e.status, statusLabel(e.status));
    statusBadge.setAttribute('data-status-badge', '');
    const sel = h('select', { id: selId, name: 'status', value: e.status }, options(statuses.map((s) => [s, statusLabel(s)]), e.status));
    let current = e.status;
    sel.addEventListener('change', async () => {
      const next = sel.value;
      sel.disabled = true;
      try {
        const updated = await api('PATCH', `/v1/feedback/${encodeURIComponent(e.id)}`, { body: { status: next } });
        current = updated.status;
        e.status = updated.status;
        statusBadge.className = `badge status-${cls(updated.status)}`;
        statusBadge.textContent = statusLabel(updated.status);
        announce(`\u201c${e.title}\u201d is now ${statusLabel(updated.status).toLowerCase()}.`);
      } catch (err) {
        sel.value = current;
        showError(err, 'Could not change the status');
      } finally {
        sel.disabled = false;
      }
    });
    const del = h('button', { type: 'button', class: 'button-danger-quiet button-small' }, 'Delete');
    const li = h('li', { class: 'card record', 'data-feedback': e.id },
      h('div', { class: 'record-main' },
        h('h2', { class: 'record-title' }, e.title),
        e.description && e.description.trim() ? h('p', { class: 'record-text' }, e.description) : null,
        h('p', { class: 'meta' },
          badge('type', e.type, FEEDBACK_TYPES[e.type] || e.type),
          statusBadge,
          h('span', { class: 'votes', 'aria-label': `${e.upvotes} upvotes, ${e.downvotes} downvotes, score ${e.score}` },
            h('span', { 'aria-hidden': 'true' }, h('b', { 'data-upvotes': '' }, fmtNum(e.upvotes)), ' up'),
            h('span', { 'aria-hidden': 'true' }, h('b', { 'data-downvotes': '' }, fmtNum(e.downvotes)), ' down'),
            h('span', { 'aria-hidden': 'true' }, 'score ', h('b', { 'data-score': '' }, fmtNum(e.score))))),
        h('p', { class: 'meta' },
          e.submitter_email ? h('span', null, 'From ', h('a', { href: `mailto:${e.submitter_email}`, 'data-email': '' }, e.submitter_email)) : h('span', null, 'No email given'),
          timeEl(e.created_at))),
      h('div', { class: 'record-side' },
        h('div', { class: 'field' },
          h('label', { for: selId }, 'Status', h('span', { class: 'sr-only' }, ` of \u201c${e.title}\u201d`)),
          sel),
        del));
    del.setAttribute('aria-label', `Delete \u201c${e.title}\u201d`);
    del.addEventListener('click', async () => {
      const ok = await confirmDialog({ title: 'Delete this feedback?', text: `\u201c${e.title}\u201d and its votes will be deleted. This cannot be undone.`, ok: 'Delete' });
      if (!ok) return;
      await busy(del, async () => {
        try {
          await api('DELETE', `/v1/feedback/${encodeURIComponent(e.id)}`);
        } catch (err) {
          showError(err, 'Could not delete the feedback');
          return;
        }
        entries = entries.filter((x) => x.id !== e.id);
        li.remove();
        updateCount();
        if (!entries.length) load();
        announce(`Deleted \u201c${e.title}\u201d.`);
        $('h1').focus();
      });
    });
    return li;
  }

  await load();
}
