// Shipmate dashboard: an index's search analytics: searches, the no-result and click-through
// rates, and the top, no-result and low-confidence queries over 7, 30 or 90 days.

import { fmtNum, h, options, stat } from './dom.js';
import { keyApi } from './api.js';
import { showError } from './ui.js';

const PERIODS = [['7d', 'Last 7 days'], ['30d', 'Last 30 days'], ['90d', 'Last 90 days']];

const pct = (x) => `${(x * 100).toFixed(1)}%`;

function table(id, caption, heads, rows, empty) {
  if (!rows.length) return h('p', { class: 'muted small', id }, empty);
  return h('div', { class: 'table-wrap' }, h('table', { id },
    h('caption', null, caption),
    h('thead', null, h('tr', null, heads.map((t, i) => h('th', { scope: 'col', class: i ? 'num' : null }, t)))),
    h('tbody', null, rows.map((r) => h('tr', null, r.map((c, i) => h('td', { class: i ? 'num' : null }, c)))))));
}

/** The card; it loads itself and reloads when the period changes. */
export function analyticsCard(project, index, alive) {
  const period = h('select', { id: 'kb-analytics-period', 'aria-label': 'Period' }, options(PERIODS, '30d'));
  const body = h('div', { id: 'kb-analytics', 'aria-live': 'polite' });
  async function load() {
    body.setAttribute('aria-busy', 'true');
    let a;
    try {
      a = await keyApi(project, 'GET', `/v1/indexes/${encodeURIComponent(index.id)}/analytics?period=${period.value}`);
    } catch (e) {
      if (alive()) showError(e, 'Could not load the search analytics');
      return;
    } finally {
      body.removeAttribute('aria-busy');
    }
    if (!alive()) return;
    const score = (s) => (s == null ? '\u2013' : s.toFixed(2));
    body.replaceChildren(
      h('div', { class: 'stats' },
        stat('Searches', fmtNum(a.searches), 'searches'),
        stat('No result', pct(a.no_result_rate), 'no-result-rate'),
        stat('Clicked', pct(a.click_through_rate), 'click-through-rate')),
      table('kb-top-queries', 'Top queries', ['Query', 'Searches', 'Top score', 'Clicks'],
        a.top_queries.map((q) => [q.query, fmtNum(q.count), score(q.avg_top_score), fmtNum(q.clicks)]), 'No searches in this period.'),
      table('kb-no-result', 'Queries with no result', ['Query', 'Searches'],
        a.no_result_queries.map((q) => [q.query, fmtNum(q.count)]), 'Every search found something.'),
      table('kb-low-confidence', 'Low-confidence queries', ['Query', 'Searches', 'Top score'],
        a.low_confidence_queries.map((q) => [q.query, fmtNum(q.count), score(q.avg_top_score)]), 'No query scored low.'));
  }
  period.addEventListener('change', load);
  load();
  return h('section', { class: 'card', 'aria-labelledby': 'kb-analytics-title' },
    h('div', { class: 'card-head' }, h('h2', { id: 'kb-analytics-title' }, 'Search analytics'), period),
    body);
}
