// Shipmate dashboard: the Journeys tab of analytics (/dashboard/p/<project>/analytics/journeys).
// For one page, the pages visits went to right after it and came from right before it (GET
// /v1/analytics/journeys), with the range, filters and segment on display. The page is picked from
// the period's top pages or typed; a row's page opens its own journeys.

import { fmtNum, h } from './dom.js';
import { api, q } from './api.js';
import { announce } from './ui.js';
import { rangeLabel, readParams } from './analytics-query.js';

const ENDS = new Set(['(exit)', '(entrance)']);

export function journeysView({ project, alive, report }) {
  const input = h('input', { type: 'text', id: 'journey-page', name: 'page', list: 'journey-pages', placeholder: '/pricing', autocomplete: 'off', spellcheck: 'false' });
  const pages = h('datalist', { id: 'journey-pages' });
  const show = h('button', { type: 'submit', class: 'button-small' }, 'Show journeys');
  const form = h('form', { class: 'query-bar', id: 'journey-form', novalidate: true },
    h('label', { for: 'journey-page' }, 'Page'), input, pages, show);
  const result = h('div', { class: 'tables', id: 'journeys-box', 'aria-live': 'polite' });
  const card = h('section', { class: 'card', 'aria-labelledby': 'journeys-title' },
    h('h2', { id: 'journeys-title' }, 'Journeys'),
    h('p', { class: 'muted' }, 'Within visits, the pages viewed right after and right before a page. A reload is no step; each page counts once per visit.'),
    form);
  let current = null;
  let seq = 0;

  form.addEventListener('submit', (e) => { e.preventDefault(); if (current) read(current, input.value.trim(), true); });

  async function load(query, announceDone) {
    current = query;
    const mine = ++seq;
    let top;
    try {
      top = await api('GET', `/v1/analytics/pages?${q({ project_id: project.id, ...readParams(query) })}`);
    } catch (e) {
      if (alive() && mine === seq) report(e, 'Could not load the pages');
      return;
    }
    if (!alive() || mine !== seq) return;
    const list = ((top && top.data) || []).map((r) => r.page);
    pages.replaceChildren(...list.map((p) => h('option', { value: p })));
    if (!input.value.trim() && list.length) input.value = list[0];
    if (!input.value.trim()) { result.replaceChildren(h('p', { class: 'muted', id: 'journeys-empty' }, 'No page views in this period.')); return; }
    await read(query, input.value.trim(), announceDone);
  }

  async function read(query, page, announceDone) {
    const mine = ++seq;
    let res;
    try {
      res = await api('GET', `/v1/analytics/journeys?${q({ project_id: project.id, ...readParams(query), page })}`);
    } catch (e) {
      if (alive() && mine === seq) report(e, 'Could not load the journeys');
      return;
    }
    if (!alive() || mine !== seq) return;
    result.replaceChildren(
      side('journeys-previous', `Before ${page}`, 'Came from', res.previous || []),
      side('journeys-next', `After ${page}`, 'Went to', res.next || []));
    if (announceDone) announce(`Journeys of ${page} for ${rangeLabel(query).replace(/^Last/, 'the last')} shown.`);
  }

  /** One side's table; a page's row opens that page's journeys. */
  function side(id, title, head, rows) {
    const max = Math.max(1, ...rows.map((r) => r.visits));
    const body = rows.length
      ? h('div', { class: 'table-wrap' }, h('table', { id },
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, head), h('th', { scope: 'col', class: 'num' }, 'Visits'))),
        h('tbody', null, rows.map((r) => {
          const bar = h('span', { class: 'bar', 'aria-hidden': 'true' });
          bar.style.width = `${Math.max(2, Math.round((r.visits / max) * 100))}%`; // CSSOM: allowed by the CSP
          const label = ENDS.has(r.page)
            ? h('span', { class: 'bar-label muted' }, r.page)
            : h('button', { type: 'button', class: 'row-filter bar-label', 'data-journey': r.page, title: `Journeys of ${r.page}`,
              onclick: () => { input.value = r.page; read(current, r.page, true); } }, r.page);
          return h('tr', null, h('td', { class: 'bar-cell cell-clip' }, bar, label), h('td', { class: 'num' }, fmtNum(r.visits)));
        }))))
      : h('p', { class: 'muted' }, 'No visits viewed this page in this period.');
    return h('section', { class: 'card', 'aria-label': title }, h('h2', null, title), body);
  }

  return { nodes: [card, result], load };
}
