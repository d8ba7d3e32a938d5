// Shipmate dashboard: "Sources by goal" in the analytics query bar (Overview). Picking a goal adds
// `goal=<id>` to the referrers and UTM reads: their rows add the goal's conversions, conversion
// rate and, for a goal with a currency, revenue (the other reads do not take it).

import { h } from './dom.js';
import { api, q } from './api.js';

/** `{ node, update(query) }`: the picker, repainted with each query (`change` sets a new one). */
export function goalPicker({ project, change, report }) {
  const node = h('div', { class: 'segment-picker', id: 'goal-box' });
  let list = null;

  async function update(query) {
    if (!list) {
      try {
        const res = await api('GET', `/v1/analytics/goals?${q({ project_id: project.id, period: '7d' })}`);
        list = ((res && res.data) || []).map((g) => ({ id: g.id, name: g.name, currency: g.revenue ? g.revenue.currency : null }));
      } catch (e) {
        report(e, 'Could not load the goals');
        return;
      }
    }
    // A goal deleted since the address was made: the sources are read without it.
    if (query.goal && !list.some((g) => g.id === query.goal)) { change({ ...query, goal: '' }); return; }
    if (!list.length) { node.replaceChildren(); return; }
    const select = h('select', { id: 'goal-picker', name: 'goal', 'aria-label': 'Sources by goal' },
      h('option', { value: '' }, 'No goal'),
      list.map((g) => h('option', { value: g.id, selected: g.id === query.goal }, g.currency ? `${g.name} (${g.currency})` : g.name)));
    select.addEventListener('change', () => change({ ...query, goal: select.value }));
    node.replaceChildren(h('label', { for: 'goal-picker', class: 'muted small' }, 'Sources by goal'), select);
  }

  return { node, update };
}
