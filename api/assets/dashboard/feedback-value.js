// Shipmate dashboard: the customer value behind an entry (its upvoters' companies, their summed
// MRR, votes per importance) and its voters, from the identify token's `company`.

import { disclosure, fmtNum, h, timeEl } from './dom.js';
import { api } from './api.js';
import { showError } from './ui.js';

export const IMPORTANCE = { must_have: 'Must have', important: 'Important', nice_to_have: 'Nice to have' };
const money = (n) => fmtNum(Math.round(n || 0));

/** MRR, companies and importance counts, for the entry's meta line (nothing when no one voted). */
export function valueLine(e) {
  const imp = e.importance || {};
  const companies = e.companies || [];
  if (!e.upvotes) return null;
  return h('p', { class: 'meta value-line', 'data-value': '' },
    h('span', { 'data-mrr': '' }, h('b', null, money(e.mrr)), ' MRR'),
    companies.length ? h('span', { 'data-companies': '' }, companies.slice(0, 3).map((c) => c.name).join(', '), companies.length > 3 ? ` +${companies.length - 3}` : '') : null,
    h('span', { 'data-importance': '' },
      Object.entries(IMPORTANCE).map(([k, label]) => `${fmtNum(imp[k] || 0)} ${label.toLowerCase()}`).join(' \u00b7 ')));
}

/** A "Voters" button and the panel it opens: the upvoters with company and importance. */
export function votersPanel(e) {
  const panel = h('section', { class: 'voters-panel', id: `voters-${e.id}`, 'aria-label': `Voters of \u201c${e.title}\u201d` });
  const toggle = disclosure('Voters', panel, load, { 'data-action': 'voters' });
  async function load() {
    panel.replaceChildren(h('p', { class: 'loading' }, 'Loading voters\u2026'));
    let voters;
    try {
      voters = (await api('GET', `/v1/feedback/${encodeURIComponent(e.id)}/voters`)).data || [];
    } catch (err) {
      panel.replaceChildren();
      showError(err, 'Could not load the voters');
      return;
    }
    panel.replaceChildren(voters.length
      ? h('div', { class: 'table-wrap' }, h('table', { class: 'voters stack-sm' },
        h('thead', null, h('tr', null, ['Voter', 'Company', 'MRR', 'Importance', 'Voted'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', null, voters.map((v) => h('tr', { 'data-voter': '' },
          h('td', null, v.name, v.email ? h('span', { class: 'small muted block' }, v.email) : null),
          h('td', null, v.company ? v.company.name : '\u2014', v.company && v.company.plan ? h('span', { class: 'small muted block' }, v.company.plan) : null),
          h('td', { class: 'num' }, v.company && v.company.mrr != null ? money(v.company.mrr) : '\u2014'),
          h('td', null, IMPORTANCE[v.importance] || v.importance),
          h('td', null, timeEl(v.voted_at)))))))
      : h('p', { class: 'muted' }, 'No upvotes yet.'));
  }
  return { panel, toggle };
}
