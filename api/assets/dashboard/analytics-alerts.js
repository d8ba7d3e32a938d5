// Shipmate dashboard: the analytics alerts card of a project's settings. An alert watches the last
// hour (a traffic spike or drop in visitors, or a goal's conversions) and goes off once until it
// clears: an email to members who opted in (Account, notifications) and the analytics.alert
// webhook event. Members add and delete alerts; the list shows each one's last figure.

import { fmtNum, h } from './dom.js';
import { api, q } from './api.js';
import { announce, busy, showError } from './ui.js';

const KINDS = [['traffic_spike', 'Visitors in the last hour above'], ['traffic_drop', 'Visitors in the last hour below'], ['goal', 'Conversions of a goal in the last hour above']];

export function alertsCard(project) {
  const listBox = h('div', { id: 'alerts-box', 'aria-live': 'polite' }, h('p', { class: 'loading' }, 'Loading alerts\u2026'));
  const kind = h('select', { id: 'alert-kind', name: 'kind' }, KINDS.map(([v, label]) => h('option', { value: v }, label)));
  const threshold = h('input', { type: 'number', id: 'alert-threshold', name: 'threshold', min: '0', value: '100', class: 'input-short' });
  const goal = h('select', { id: 'alert-goal', name: 'goal_id', 'aria-label': 'Goal', hidden: true });
  const add = h('button', { type: 'submit', class: 'button-small' }, 'Add alert');
  const form = h('form', { class: 'query-bar', id: 'alert-form', novalidate: true }, kind, goal, threshold, add);
  let goals = [];
  kind.addEventListener('change', () => { goal.hidden = kind.value !== 'goal'; });

  async function load() {
    let alerts;
    try {
      const [a, g] = await Promise.all([
        api('GET', `/v1/analytics/alerts?${q({ project_id: project.id })}`),
        api('GET', `/v1/analytics/goals?${q({ project_id: project.id, period: '7d' })}`),
      ]);
      alerts = (a && a.data) || [];
      goals = (g && g.data) || [];
    } catch (e) {
      listBox.replaceChildren(h('p', { class: 'muted' }, 'The alerts could not be loaded.'));
      return;
    }
    goal.replaceChildren(...goals.map((g) => h('option', { value: g.id }, g.name)));
    const label = (a) => {
      const what = (KINDS.find(([v]) => v === a.kind) || [a.kind, a.kind])[1];
      const name = a.goal_id ? ` (${(goals.find((g) => g.id === a.goal_id) || { name: 'a goal' }).name})` : '';
      return `${what} ${fmtNum(a.threshold)}${name}`;
    };
    listBox.replaceChildren(alerts.length
      ? h('ul', { class: 'plain-list', id: 'alerts-list' }, alerts.map((a) => {
        const del = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'data-action': 'delete-alert' }, 'Delete');
        del.addEventListener('click', () => busy(del, async () => {
          try { await api('DELETE', `/v1/analytics/alerts/${encodeURIComponent(a.id)}`); } catch (e) { showError(e, 'Could not delete the alert'); return; }
          announce('Alert deleted.');
          await load();
        }));
        const state = a.value === null || a.value === undefined ? 'not checked yet' : `last hour: ${fmtNum(a.value)}${a.firing ? ', going off' : ''}`;
        return h('li', { 'data-alert': a.id, 'data-firing': String(a.firing) }, h('span', null, label(a)), ' ', h('span', { class: 'muted small' }, `(${state})`), ' ', del);
      }))
      : h('p', { class: 'muted', id: 'alerts-empty' }, 'No alerts yet.'));
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    busy(add, async () => {
      const body = { project_id: project.id, kind: kind.value, threshold: Number(threshold.value) };
      if (kind.value === 'goal') body.goal_id = goal.value;
      try { await api('POST', '/v1/analytics/alerts', { body }); } catch (err) { showError(err, 'Could not add the alert'); return; }
      announce('Alert added.');
      await load();
    });
  });

  const card = h('section', { class: 'card', 'aria-labelledby': 'alerts-title' },
    h('h2', { id: 'alerts-title' }, 'Analytics alerts'),
    h('p', { class: 'muted' }, 'Checked every 5 minutes over the last hour. An alert goes off once until it clears: an email to members who turned on alerts in their account, and the analytics.alert webhook event.'),
    form, listBox);
  return { card, load };
}
