// Shipmate dashboard: the Goals tab of analytics (/dashboard/p/<project>/analytics/goals). A goal
// is an event name or a page; the list shows, for the range and filters on display, how many of the
// period's visitors reached each one and the conversion rate. Members create and delete goals;
// viewers read them.

import { field, fmtNum, formErr, h } from './dom.js';
import { api, q } from './api.js';
import { announce, busy, clearFormErrors, confirmDialog, setFieldError, showFormError } from './ui.js';
import { fmtPct, rangeLabel, readParams } from './analytics-query.js';

/** A goal's revenue details: the average, and what was left out for its currency. */
function revenueNote(g) {
  if (!g.revenue) return 'No currency set for this goal';
  const skipped = g.revenue_skipped ? `; ${g.revenue_skipped} in other currencies left out` : '';
  return `Average ${g.revenue.average} ${g.revenue.currency}${skipped}`;
}

export function goalsView({ project, alive, report }) {
  const listBox = h('div', { id: 'goals-box', 'aria-live': 'polite' }, h('p', { class: 'loading' }, 'Loading goals\u2026'));
  const listCard = h('section', { class: 'card', 'aria-labelledby': 'goals-title' },
    h('h2', { id: 'goals-title' }, 'Goals'),
    h('p', { class: 'muted' }, 'Visitors who did an event or saw a page, out of every visitor of the range (the filters apply to both).'),
    listBox);
  let current = null; // the query on display
  let seq = 0;

  async function load(query, announceDone) {
    current = query;
    const mine = ++seq;
    let res;
    try {
      res = await api('GET', `/v1/analytics/goals?${q({ project_id: project.id, ...readParams(query) })}`);
    } catch (e) {
      if (!alive() || mine !== seq) return;
      listBox.replaceChildren(h('p', { class: 'muted' }, 'The goals could not be loaded.'));
      report(e, 'Could not load the goals');
      return;
    }
    if (!alive() || mine !== seq) return;
    const goals = (res && res.data) || [];
    listBox.replaceChildren(goals.length ? goalTable(goals) : h('p', { class: 'muted', id: 'goals-empty' }, 'No goals yet. Add one below: a signup event, a thank-you page.'));
    if (announceDone) announce(`Goals for ${rangeLabel(query).replace(/^Last/, 'the last')} updated.`);
  }

  function goalTable(goals) {
    return h('div', { class: 'table-wrap' }, h('table', { id: 'goals-table' },
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'Goal'), h('th', { scope: 'col' }, 'Reached by'),
        h('th', { scope: 'col', class: 'num' }, 'Conversions'), h('th', { scope: 'col', class: 'num' }, 'Visitors'),
        h('th', { scope: 'col', class: 'num' }, 'Rate'), h('th', { scope: 'col', class: 'num' }, 'Revenue'),
        h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, goals.map((g) => {
        const del = h('button', { type: 'button', class: 'button-danger-quiet button-small member-only', 'data-action': 'delete-goal', 'aria-label': `Delete goal \u201c${g.name}\u201d` }, 'Delete');
        del.addEventListener('click', () => remove(g, del));
        const bar = h('span', { class: 'bar', 'aria-hidden': 'true' });
        bar.style.width = `${Math.max(2, Math.min(100, Math.round(Number(g.conversion_rate) || 0)))}%`; // CSSOM: allowed by the CSP
        return h('tr', { 'data-goal': g.id },
          h('td', { class: 'bar-cell cell-clip' }, bar, h('span', { class: 'bar-label' }, g.name)),
          h('td', { class: 'cell-clip' }, g.event ? h('span', null, 'Event ', h('code', null, g.event)) : g.page ? h('span', null, 'Page ', h('code', null, g.page)) : '\u2014'),
          h('td', { class: 'num', 'data-conversions': '' }, fmtNum(Number(g.conversions) || 0)),
          h('td', { class: 'num', 'data-visitors': '' }, fmtNum(Number(g.visitors) || 0)),
          h('td', { class: 'num', 'data-rate': '' }, fmtPct(g.conversion_rate)),
          h('td', { class: 'num', 'data-revenue': '', title: revenueNote(g) }, g.revenue ? `${g.revenue.total} ${g.revenue.currency}` : '\u2014'),
          h('td', { class: 'row-actions' }, del));
      }))));
  }

  async function remove(goal, btn) {
    const ok = await confirmDialog({ title: `Delete the goal \u201c${goal.name}\u201d?`, text: 'Its conversions are no longer shown. The events themselves are kept.', ok: 'Delete goal' });
    if (!ok) return;
    await busy(btn, async () => {
      try {
        await api('DELETE', `/v1/analytics/goals/${encodeURIComponent(goal.id)}`);
      } catch (e) {
        report(e, 'Could not delete the goal');
        return;
      }
      if (!alive()) return;
      announce(`Goal \u201c${goal.name}\u201d deleted.`);
      await load(current, false);
    });
  }

  // The create form: a name, and either an event name or a page path.
  const nameInput = h('input', { type: 'text', name: 'name', maxlength: '100', required: true, autocomplete: 'off' });
  const kindEvent = h('input', { type: 'radio', name: 'goal-kind', id: 'goal-kind-event', value: 'event', checked: true });
  const kindPage = h('input', { type: 'radio', name: 'goal-kind', id: 'goal-kind-page', value: 'page' });
  const targetInput = h('input', { type: 'text', name: 'event', required: true, autocomplete: 'off', placeholder: 'signup', spellcheck: 'false' });
  const targetField = field({ id: 'goal-target', label: 'Event name', control: targetInput, hint: 'The name sent with sm(\u2019signup\u2019) or analytics.track.' });
  const syncKind = () => {
    const page = kindPage.checked;
    targetInput.setAttribute('name', page ? 'page' : 'event');
    targetInput.placeholder = page ? '/thank-you' : 'signup';
    targetField.querySelector('label').textContent = page ? 'Page path' : 'Event name';
    const err = targetField.querySelector('.field-err');
    err.setAttribute('data-err-for', page ? 'page' : 'event');
    err.setAttribute('data-label', page ? 'Page path' : 'Event name');
    targetField.querySelector('.hint').textContent = page ? 'The path as it shows in Pages, e.g. /thank-you.' : 'The name sent with sm(\u2019signup\u2019) or analytics.track.';
  };
  kindEvent.addEventListener('change', syncKind);
  kindPage.addEventListener('change', syncKind);
  const currencyInput = h('input', { type: 'text', name: 'currency', maxlength: '3', autocomplete: 'off', placeholder: 'EUR', spellcheck: 'false', class: 'input-short' });
  const currencyField = field({ id: 'goal-currency', label: 'Revenue currency (optional)', control: currencyInput, hint: 'An ISO 4217 code: the goal then sums the revenue its events carry in it.' });
  const submit = h('button', { type: 'submit' }, 'Add goal');
  const form = h('form', { id: 'goal-form', novalidate: true },
    formErr(),
    field({ id: 'goal-name', label: 'Name', control: nameInput }),
    h('fieldset', { class: 'picker' }, h('legend', null, 'Reached when a visitor'),
      h('div', { class: 'button-row' },
        h('label', { class: 'check', for: 'goal-kind-event' }, kindEvent, 'does an event'),
        h('label', { class: 'check', for: 'goal-kind-page' }, kindPage, 'sees a page'))),
    targetField,
    currencyField,
    h('div', { class: 'button-row' }, submit));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    const name = nameInput.value.trim();
    const target = targetInput.value.trim();
    const kind = kindPage.checked ? 'page' : 'event';
    let bad = null;
    if (!name) bad = setFieldError(form, 'name', 'is required.') || bad;
    if (!target) bad = setFieldError(form, kind, 'is required.') || bad;
    if (bad) { (form.querySelector('[aria-invalid="true"]') || bad).focus(); return; }
    await busy(submit, async () => {
      let goal;
      try {
        const currency = currencyInput.value.trim();
        goal = await api('POST', '/v1/analytics/goals', { body: { project_id: project.id, name, [kind]: target, ...(currency ? { currency } : {}) } });
      } catch (e) {
        if (alive()) showFormError(form, e);
        return;
      }
      if (!alive()) return;
      form.reset();
      kindEvent.checked = true; // reset() restores the markup's defaults, and none was written as markup
      syncKind();
      announce(`Goal \u201c${goal.name}\u201d added.`);
      await load(current, false);
    });
  });
  const formCard = h('section', { class: 'card member-only', 'aria-labelledby': 'goal-form-title' },
    h('h2', { id: 'goal-form-title' }, 'Add a goal'), form);

  return { nodes: [listCard, formCard], load };
}
