// Shipmate dashboard: search gaps. What people searched the project's indexes for and did not
// find, rewordings grouped, most searched first, each next to the closest public request, and a
// request made from a gap in one click.

import { badge, fmtNum, h, options, statusLabel } from './dom.js';
import { api } from './api.js';
import { announce, busy, showError } from './ui.js';

const PERIODS = [['7d', 'Last 7 days'], ['30d', 'Last 30 days'], ['90d', 'Last 90 days']];

function closest(f) {
  if (!f) return h('span', { class: 'muted' }, 'None related');
  return h('span', { 'data-similar-feedback': f.id },
    badge('status', f.status, statusLabel(f.status)), ' ', f.title,
    h('span', { class: 'muted small' }, ` \u00b7 ${Math.round(f.similarity * 100)}% similar`));
}

/** The card of the project's search gaps; it loads itself and reloads when the period changes. */
export function gapsCard(project, alive) {
  const base = `/v1/projects/${encodeURIComponent(project.id)}/insights/search-gaps`;
  const period = h('select', { id: 'kb-gaps-period', 'aria-label': 'Period' }, options(PERIODS, '30d'));
  const body = h('div', { id: 'kb-gaps', 'aria-live': 'polite' });

  function createButton(gap) {
    const button = h('button', { type: 'button', class: 'button-secondary button-small', 'data-gap-create': gap.query }, 'Create request');
    button.addEventListener('click', () => busy(button, async () => {
      let entry;
      try {
        entry = await api('POST', `${base}/feedback`, { body: { query: gap.query, type: 'feature' } });
      } catch (e) {
        showError(e, 'Could not create the request');
        return;
      }
      button.replaceWith(h('span', { class: 'small', 'data-gap-created': entry.id }, `Created \u201c${entry.title}\u201d`));
      announce(`Created the request \u201c${entry.title}\u201d.`);
    }));
    return button;
  }

  async function load() {
    body.setAttribute('aria-busy', 'true');
    let gaps;
    try {
      gaps = (await api('GET', `${base}?period=${period.value}`)).data || [];
    } catch (e) {
      if (!alive()) return;
      if (e.status === 403) body.replaceChildren(h('p', { class: 'muted' }, 'Search gaps are for members and admins.'));
      else showError(e, 'Could not load the search gaps');
      return;
    } finally {
      body.removeAttribute('aria-busy');
    }
    if (!alive()) return;
    if (!gaps.length) {
      body.replaceChildren(h('p', { class: 'muted' }, 'No gaps in this period: every search found something confident.'));
      return;
    }
    body.replaceChildren(h('div', { class: 'table-wrap' }, h('table', { id: 'kb-gaps-table' },
      h('caption', null, 'Searches that found nothing, or nothing confident'),
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'Query'), h('th', { scope: 'col', class: 'num' }, 'Searches'),
        h('th', { scope: 'col' }, 'Closest public request'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Action')))),
      h('tbody', null, gaps.map((g) => h('tr', { 'data-gap': g.query },
        h('td', null, g.query), h('td', { class: 'num' }, fmtNum(g.searches)),
        h('td', null, closest(g.similar_feedback)), h('td', null, createButton(g))))))));
  }
  period.addEventListener('change', load);
  load();
  return h('section', { class: 'card', 'aria-labelledby': 'kb-gaps-title' },
    h('div', { class: 'card-head' }, h('h2', { id: 'kb-gaps-title' }, 'Search gaps'), period),
    h('p', { class: 'hint' }, 'What people searched every index for and did not find, next to the request that would answer it.'),
    body);
}
