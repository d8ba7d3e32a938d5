// Shipmate dashboard: the Sharing tab of analytics (/dashboard/p/<project>/analytics/sharing):
// read-only links to the project's analytics (a server-rendered page at /share/<token>, no sign-in).
// Owners and admins create them, copy them and revoke them; a revoked link stops working at once.
// A link may be locked to a saved segment: its page then shows that segment only.

import { fmtDate, h } from './dom.js';
import { api } from './api.js';
import { announce, busy, confirmDialog, copyText } from './ui.js';
import { myRole } from './roles.js';
import { segmentsOf } from './analytics-segments.js';

export function shareView({ project, alive, report, linkQuery }) {
  const canManage = ['owner', 'admin'].includes(myRole(project));
  const listBox = h('div', { id: 'share-box' }, canManage ? h('p', { class: 'loading' }, 'Loading links\u2026') : null);
  const create = h('button', { type: 'button', id: 'share-create' }, 'Create a link');
  const segmentSelect = h('select', { id: 'share-segment', name: 'segment_id', 'aria-label': 'What the link shows' }, h('option', { value: '' }, 'All visitors'));
  let segments = [];
  const base = `/v1/projects/${encodeURIComponent(project.id)}/analytics/share`;

  async function load() {
    if (!canManage) return;
    let res;
    try {
      [res, segments] = await Promise.all([api('GET', base), segmentsOf(project.id)]);
    } catch (e) {
      if (!alive()) return;
      listBox.replaceChildren(h('p', { class: 'muted' }, 'The links could not be loaded.'));
      report(e, 'Could not load the share links');
      return;
    }
    if (!alive()) return;
    const picked = segmentSelect.value;
    segmentSelect.replaceChildren(h('option', { value: '' }, 'All visitors'),
      ...segments.map((sg) => h('option', { value: sg.id, selected: sg.id === picked }, `Segment: ${sg.name}`)));
    render((res && res.data) || []);
  }

  function render(links) {
    if (!links.length) {
      listBox.replaceChildren(h('p', { class: 'muted', id: 'share-empty' }, 'No links yet.'));
      return;
    }
    listBox.replaceChildren(h('ul', { class: 'plain-list', id: 'share-list' }, links.map((l) => {
      const id = `share-url-${l.id}`;
      const input = h('input', { type: 'text', id, readOnly: true, value: l.url, spellcheck: 'false', 'aria-label': 'Share link' });
      input.addEventListener('focus', () => input.select());
      const copy = h('button', { type: 'button', class: 'button-secondary button-small', 'data-action': 'copy-share', onclick: () => copyText(l.url, 'Share link') }, 'Copy');
      // The shared page takes the reads' query too: the range and filters on display here, baked in.
      const view = linkQuery();
      const copyView = view && view !== 'period=30d' ? h('button', { type: 'button', class: 'button-secondary button-small', 'data-action': 'copy-share-view', title: view,
        onclick: () => copyText(`${l.url}?${view}`, 'Share link with this range and filters') }, 'Copy with this view') : null;
      const revoke = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'data-action': 'revoke-share' }, 'Revoke');
      revoke.addEventListener('click', () => remove(l, revoke));
      return h('li', { 'data-share': l.id },
        h('div', { class: 'copy-row share-row' }, input, copy, copyView, revoke),
        h('span', { class: 'muted small', 'data-share-segment': l.segment_id || '' }, `Created ${fmtDate(l.created_at)}`,
          l.segment_id ? ` \u00b7 shows the segment ${(segments.find((sg) => sg.id === l.segment_id) || { name: 'saved' }).name} only` : ''));
    })));
  }

  create.addEventListener('click', () => busy(create, async () => {
    let link;
    try {
      link = await api('POST', base, segmentSelect.value ? { body: { segment_id: segmentSelect.value } } : {});
    } catch (e) {
      report(e, 'Could not create a link');
      return;
    }
    if (!alive()) return;
    announce('Share link created. Anyone with it can read this project\u2019s analytics.');
    await load();
    const input = document.getElementById(`share-url-${link.id}`);
    if (input) input.focus();
  }));

  async function remove(link, btn) {
    const ok = await confirmDialog({ title: 'Revoke this link?', text: 'Anyone using it loses access at once. Links made later are not affected.', ok: 'Revoke link' });
    if (!ok) return;
    await busy(btn, async () => {
      try {
        await api('DELETE', `${base}/${encodeURIComponent(link.id)}`);
      } catch (e) {
        report(e, 'Could not revoke the link');
        return;
      }
      if (!alive()) return;
      announce('Share link revoked.');
      await load();
      create.focus();
    });
  }

  const card = h('section', { class: 'card', 'aria-labelledby': 'share-title' },
    h('h2', { id: 'share-title' }, 'Shared links'),
    h('p', { class: 'muted' }, 'A link opens a read-only view of this project\u2019s analytics without signing in: the figures, the chart and the tables, nothing else. Revoke it to end access.'),
    canManage ? h('div', { class: 'button-row' }, segmentSelect, create) : h('p', { id: 'share-admins-only' }, 'Only owners and admins create and revoke share links.'),
    listBox);
  return { nodes: [card], load };
}
