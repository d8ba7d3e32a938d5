// Shipmate dashboard: the Funnels tab of analytics (/dashboard/p/<project>/analytics/funnels and
// .../funnels/<funnel>). A funnel is 2 to 8 ordered steps, each a page or an event; its page shows,
// for the range and filters on display, how many visitors reached each step (having reached the
// earlier ones before it, the same day) as a bar chart and a table, with each step's conversion
// from the first. Members create and delete funnels.

import { $, field, fmtNum, formErr, h, nextId, options, svg } from './dom.js';
import { api, q } from './api.js';
import { announce, busy, clearFormErrors, confirmDialog, setFieldError, showFormError } from './ui.js';
import { navigate, projectPath } from './router.js';
import { fmtPct, rangeLabel, readParams } from './analytics-query.js';

export const MIN_STEPS = 2;
export const MAX_STEPS = 8;

const stepText = (s) => (s && s.page ? `Page ${s.page}` : s && s.event ? `Event ${s.event}` : '?');

export function funnelsView({ project, alive, sub2, report, linkQuery }) {
  const listBox = h('div', { id: 'funnels-box' }, h('p', { class: 'loading' }, 'Loading funnels\u2026'));
  const listCard = h('section', { class: 'card', 'aria-labelledby': 'funnels-title' }, h('h2', { id: 'funnels-title' }, 'Funnels'), listBox);
  const resultBox = h('div', { id: 'funnel-result', 'aria-live': 'polite' });
  const resultTitle = h('h2', { id: 'funnel-result-title' }, 'Funnel');
  const resultCard = sub2 ? h('section', { class: 'card', 'aria-labelledby': 'funnel-result-title' }, resultTitle, resultBox) : null;
  const funnelPath = (id) => `${projectPath(project, 'analytics', 'funnels', id)}?${linkQuery()}`;
  let current = null;
  let lastResult = null;
  let seq = 0;

  async function load(query, announceDone) {
    current = query;
    const mine = ++seq;
    const [list, result] = await Promise.allSettled([
      api('GET', `/v1/analytics/funnels?${q({ project_id: project.id })}`),
      sub2 ? api('GET', `/v1/analytics/funnels/${encodeURIComponent(sub2)}?${q({ project_id: project.id, ...readParams(query) })}`) : Promise.resolve(null),
    ]);
    if (!alive() || mine !== seq) return;
    if (list.status === 'fulfilled') renderList((list.value && list.value.data) || []);
    else { listBox.replaceChildren(h('p', { class: 'muted' }, 'The funnels could not be loaded.')); report(list.reason, 'Could not load the funnels'); }
    if (sub2) {
      if (result.status === 'fulfilled') {
        lastResult = result.value || {};
        resultTitle.textContent = lastResult.name || 'Funnel';
        drawResult(lastResult);
      } else {
        lastResult = null;
        const gone = result.reason && result.reason.status === 404;
        resultBox.replaceChildren(h('p', { class: 'muted' }, gone ? 'This funnel does not exist any more.' : 'The funnel could not be loaded.'));
        if (!gone) report(result.reason, 'Could not load the funnel');
      }
    }
    if (announceDone) announce(`Funnels for ${rangeLabel(query).replace(/^Last/, 'the last')} updated.`);
  }

  function renderList(funnels) {
    if (!funnels.length) {
      listBox.replaceChildren(h('p', { class: 'muted', id: 'funnels-empty' }, 'No funnels yet. Add one below: the pages from landing to signup, say.'));
      return;
    }
    listBox.replaceChildren(h('ul', { class: 'plain-list', id: 'funnel-list' }, funnels.map((f) => {
      const del = h('button', { type: 'button', class: 'button-danger-quiet button-small member-only', 'data-action': 'delete-funnel', 'aria-label': `Delete funnel \u201c${f.name}\u201d` }, 'Delete');
      del.addEventListener('click', () => remove(f, del));
      const steps = Array.isArray(f.steps) ? f.steps : [];
      return h('li', { 'data-funnel': f.id },
        h('span', null,
          h('a', { href: funnelPath(f.id), 'data-nav': '', 'aria-current': f.id === sub2 ? 'page' : null }, f.name),
          h('span', { class: 'muted small' }, ` \u00b7 ${steps.length} steps: ${steps.map(stepText).join(' \u2192 ')}`)),
        del);
    })));
  }

  /** The steps as horizontal bars (visitors, with the conversion from the first step), then a table. */
  function drawResult(res) {
    const steps = (Array.isArray(res.steps) ? res.steps : []).map((s) => ({ label: String(s.label || ''), visitors: Number(s.visitors) || 0, rate: Number(s.conversion_rate) || 0 }));
    if (!steps.length) { resultBox.replaceChildren(h('p', { class: 'muted' }, 'This funnel has no steps.')); return; }
    const W = Math.max(280, Math.round(resultBox.clientWidth || 720));
    const narrow = W < 500;
    const labelW = narrow ? 0 : Math.min(220, Math.round(W * 0.3));
    const rowH = narrow ? 46 : 34;
    const barH = 20;
    const H = steps.length * rowH + 8;
    const valueW = 120;
    const max = Math.max(1, ...steps.map((s) => s.visitors));
    const barSpace = Math.max(40, W - labelW - valueW - 8);
    const titleId = nextId('funnel-title');
    const descId = nextId('funnel-desc');
    const last = steps[steps.length - 1];
    const el = svg('svg', { class: 'chart funnel-chart', id: 'funnel-chart', viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-labelledby': `${titleId} ${descId}` },
      svg('title', { id: titleId }, `Visitors at each step of ${res.name || 'the funnel'}`),
      svg('desc', { id: descId }, `${plural(steps[0].visitors)} started; ${plural(last.visitors)} reached the last step (${fmtPct(last.rate)}).`));
    steps.forEach((s, i) => {
      const top = i * rowH + 4;
      const barTop = narrow ? top + 18 : top + (rowH - barH) / 2;
      const x0 = labelW;
      const w = Math.max(2, Math.round((s.visitors / max) * barSpace));
      const label = `${i + 1}. ${s.label}`;
      el.append(svg('text', { class: 'funnel-label', x: narrow ? 0 : 0, y: narrow ? top + 12 : barTop + 14 }, clip(label, narrow ? 48 : Math.floor(labelW / 7))));
      el.append(svg('rect', { class: 'funnel-bar', x: x0, y: barTop, width: w, height: barH, rx: 4, 'data-step': i, 'data-visitors': s.visitors }));
      el.append(svg('text', { class: 'funnel-value', x: x0 + w + 8, y: barTop + 14 }, `${fmtNum(s.visitors)} \u00b7 ${fmtPct(s.rate)}`));
    });
    const table = h('div', { class: 'table-wrap' }, h('table', { id: 'funnel-steps' },
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Step'), h('th', { scope: 'col', class: 'num' }, 'Visitors'),
        h('th', { scope: 'col', class: 'num' }, 'Conversion'), h('th', { scope: 'col', class: 'num' }, 'Drop-off'))),
      h('tbody', null, steps.map((s, i) => h('tr', { 'data-step': i },
        h('td', { class: 'cell-clip' }, `${i + 1}. ${s.label}`),
        h('td', { class: 'num', 'data-visitors': '' }, fmtNum(s.visitors)),
        h('td', { class: 'num', 'data-rate': '' }, fmtPct(s.rate)),
        h('td', { class: 'num' }, i === 0 ? '\u2014' : fmtNum(Math.max(0, steps[i - 1].visitors - s.visitors))))))));
    resultBox.replaceChildren(el, table);
  }

  async function remove(funnel, btn) {
    const ok = await confirmDialog({ title: `Delete the funnel \u201c${funnel.name}\u201d?`, text: 'Only the funnel goes; the events are kept.', ok: 'Delete funnel' });
    if (!ok) return;
    await busy(btn, async () => {
      try {
        await api('DELETE', `/v1/analytics/funnels/${encodeURIComponent(funnel.id)}`);
      } catch (e) {
        report(e, 'Could not delete the funnel');
        return;
      }
      if (!alive()) return;
      announce(`Funnel \u201c${funnel.name}\u201d deleted.`);
      if (funnel.id === sub2) navigate(`${projectPath(project, 'analytics', 'funnels')}?${linkQuery()}`);
      else await load(current, false);
    });
  }

  // The create form: a name and 2 to 8 steps, each a page path or an event name.
  const nameInput = h('input', { type: 'text', name: 'name', maxlength: '100', required: true, autocomplete: 'off' });
  const stepList = h('ol', { class: 'step-rows', id: 'funnel-step-rows' });
  const addStep = h('button', { type: 'button', class: 'button-secondary button-small', id: 'add-step' }, 'Add step');
  const stepsErr = h('p', { class: 'field-err', id: 'funnel-steps-err', 'data-err-for': 'steps', 'data-label': 'Steps' });
  const stepRow = (kind = 'page', value = '') => {
    const n = nextId('step');
    const sel = h('select', { class: 'step-kind', 'aria-label': 'Step type', id: `${n}-kind` }, options([['page', 'Page'], ['event', 'Event']], kind));
    const input = h('input', { type: 'text', class: 'step-value', 'aria-label': 'Page path or event name', id: `${n}-value`, value, placeholder: kind === 'page' ? '/pricing' : 'signup', spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'funnel-steps-err' });
    sel.addEventListener('change', () => { input.placeholder = sel.value === 'page' ? '/pricing' : 'signup'; });
    const rm = h('button', { type: 'button', class: 'button-ghost button-small step-remove', 'aria-label': 'Remove this step' }, '\u00d7');
    const li = h('li', { class: 'step-row' }, sel, input, rm);
    rm.addEventListener('click', () => {
      const next = li.nextElementSibling || li.previousElementSibling;
      li.remove();
      syncSteps();
      const target = next ? $('.step-value', next) : addStep;
      if (target) target.focus();
    });
    return li;
  };
  const syncSteps = () => {
    const rows = [...stepList.children];
    rows.forEach((li, i) => {
      $('.step-kind', li).setAttribute('aria-label', `Step ${i + 1} type`);
      $('.step-value', li).setAttribute('aria-label', `Step ${i + 1} page path or event name`);
      $('.step-remove', li).disabled = rows.length <= MIN_STEPS;
      $('.step-remove', li).setAttribute('aria-label', `Remove step ${i + 1}`);
    });
    addStep.disabled = rows.length >= MAX_STEPS;
  };
  const resetSteps = () => {
    stepList.replaceChildren(stepRow('page', ''), stepRow('page', ''));
    syncSteps();
  };
  addStep.addEventListener('click', () => {
    if (stepList.children.length >= MAX_STEPS) return;
    const li = stepRow('page', '');
    stepList.append(li);
    syncSteps();
    $('.step-value', li).focus();
  });
  resetSteps();

  const submit = h('button', { type: 'submit' }, 'Create funnel');
  const form = h('form', { id: 'funnel-form', novalidate: true },
    formErr(),
    field({ id: 'funnel-name', label: 'Name', control: nameInput }),
    h('fieldset', { class: 'picker' }, h('legend', null, `Steps, in order (${MIN_STEPS} to ${MAX_STEPS})`),
      stepList, stepsErr, h('div', { class: 'button-row' }, addStep)),
    h('div', { class: 'button-row' }, submit));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    const name = nameInput.value.trim();
    const rows = [...stepList.children];
    const steps = rows.map((li) => ({ [$('.step-kind', li).value]: $('.step-value', li).value.trim() }));
    let bad = null;
    if (!name) bad = setFieldError(form, 'name', 'is required.');
    const empty = rows.filter((li) => !$('.step-value', li).value.trim());
    if (empty.length) {
      setFieldError(form, 'steps', 'Every step needs a page path or an event name.');
      empty.forEach((li) => $('.step-value', li).setAttribute('aria-invalid', 'true'));
      bad = bad || $('.step-value', empty[0]);
    } else if (steps.length < MIN_STEPS || steps.length > MAX_STEPS) {
      bad = bad || setFieldError(form, 'steps', `A funnel has ${MIN_STEPS} to ${MAX_STEPS} steps.`);
    }
    if (bad) { (form.querySelector('[aria-invalid="true"]') || bad).focus(); return; }
    await busy(submit, async () => {
      let funnel;
      try {
        funnel = await api('POST', '/v1/analytics/funnels', { body: { project_id: project.id, name, steps } });
      } catch (e) {
        if (!alive()) return;
        // Errors about one step (`steps[2].page`) are shown as the steps' error.
        if (e && Array.isArray(e.errors)) e.errors = e.errors.map((fe) => (/^steps\b/.test(fe.field) ? { ...fe, field: 'steps' } : fe));
        showFormError(form, e);
        return;
      }
      if (!alive()) return;
      announce(`Funnel \u201c${funnel.name}\u201d created.`);
      navigate(funnelPath(funnel.id));
    });
  });
  const formCard = h('section', { class: 'card member-only', 'aria-labelledby': 'funnel-form-title' },
    h('h2', { id: 'funnel-form-title' }, 'Create a funnel'), form);

  return {
    nodes: [resultCard, listCard, formCard],
    load,
    onResize: () => { if (lastResult) drawResult(lastResult); },
  };
}

function plural(n) {
  return `${fmtNum(n)} ${n === 1 ? 'visitor' : 'visitors'}`;
}

function clip(s, max) {
  return s.length > max ? `${s.slice(0, Math.max(1, max - 1))}\u2026` : s;
}
