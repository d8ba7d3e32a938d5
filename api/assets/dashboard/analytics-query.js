// Shipmate dashboard: what the analytics views are asked about: the range (a period, or custom
// `from`/`to` dates), the comparison with the period before, and the filters (exact values, ANDed).
// All of it lives in the address's query string, so a reload or a shared dashboard link keeps it;
// the query bar (range picker and compare switch) and the filter chips change it.

import { h, nextId } from './dom.js';
import { ApiError } from './api.js';

export const PERIODS = [['7d', '7 days'], ['30d', '30 days'], ['90d', '90 days']];

/** The filters every analytics read takes (docs: api-contract "Analytics, continued"), in chip order. */
export const FILTERS = [
  ['page', 'Page'], ['referrer', 'Referrer'], ['country', 'Country'], ['device', 'Device'],
  ['browser', 'Browser'], ['os', 'OS'], ['utm_source', 'UTM source'], ['utm_medium', 'UTM medium'],
  ['utm_campaign', 'UTM campaign'], ['event', 'Event'],
];
const FILTER_KEYS = new Set(FILTERS.map(([k]) => k));
export const filterLabel = (key) => (FILTERS.find(([k]) => k === key) || [key, key])[1];

const DATE = /^\d{4}-\d{2}-\d{2}$/;

// The query last shown per project: the side navigation's links carry no query string, and going
// back to Analytics should find the range and filters as they were left.
const remembered = new Map();

/**
 * The query on display: `{period, from, to, compare, filters, segment, goal}` read from the address (unknown
 * parameters ignored); an address without any takes the project's remembered one.
 */
export function readQuery(projectId) {
  let params = new URLSearchParams(window.location.search);
  if (![...params.keys()].length && remembered.has(projectId)) {
    params = new URLSearchParams(remembered.get(projectId));
    const s = params.toString();
    if (s) history.replaceState(null, '', `${window.location.pathname}?${s}`);
  }
  const query = { period: '30d', from: '', to: '', compare: false, filters: {}, segment: params.get('segment') || '', goal: params.get('goal') || '' };
  const period = params.get('period');
  if (PERIODS.some(([v]) => v === period)) query.period = period;
  const from = params.get('from') || '';
  const to = params.get('to') || '';
  if (DATE.test(from) && DATE.test(to)) { query.from = from; query.to = to; }
  query.compare = params.get('compare') === 'previous';
  for (const [k, v] of params) if (FILTER_KEYS.has(k) && v !== '') query.filters[k] = v;
  return query;
}

/** The query string of the address (and of links between the analytics views). */
export function searchOf(query, { compare = true } = {}) {
  const u = new URLSearchParams();
  if (query.from && query.to) { u.set('from', query.from); u.set('to', query.to); } else u.set('period', query.period);
  if (compare && query.compare) u.set('compare', 'previous');
  for (const [k] of FILTERS) if (query.filters[k] !== undefined) u.set(k, query.filters[k]);
  if (query.segment) u.set('segment', query.segment);
  if (query.goal) u.set('goal', query.goal);
  return u.toString();
}

/** Puts the query in the address (replacing the entry: a filter is not a page of its own). */
export function writeQuery(projectId, query) {
  const s = searchOf(query);
  remembered.set(projectId, s);
  history.replaceState(null, '', `${window.location.pathname}${s ? `?${s}` : ''}`);
}

/** The parameters of an analytics read: the range and the filters (`range: false` leaves the range out). */
export function readParams(query, { range = true } = {}) {
  const p = {};
  if (range) {
    if (query.from && query.to) { p.from = query.from; p.to = query.to; } else p.period = query.period;
  }
  return { ...p, ...query.filters, ...(query.segment ? { segment: query.segment } : {}) };
}

/** Words for the range: "Last 30 days" or "1 Mar 2026 – 31 Mar 2026". */
export function rangeLabel(query) {
  if (query.from && query.to) return `${fmtDay(query.from)} \u2013 ${fmtDay(query.to)}`;
  return `Last ${(PERIODS.find(([v]) => v === query.period) || [query.period, query.period])[1]}`;
}

function fmtDay(ymd) {
  const d = new Date(`${ymd}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? ymd : d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
}

/**
 * The range picker (7, 30, 90 days or custom dates) and, with `compare`, the switch that adds the
 * previous period's figures. `change(query)` gets a new query object; the caller stores and loads it.
 * `showErrors(err)` of the result puts a 422 about `from`/`to` beside the dates.
 */
export function queryBar(query, change, { compare = false } = {}) {
  const custom = Boolean(query.from && query.to);
  const periodBtns = PERIODS.map(([value, label]) => h('button', {
    type: 'button', 'aria-pressed': String(!custom && value === query.period), 'data-period': value,
  }, label));
  const customBtn = h('button', { type: 'button', 'aria-pressed': String(custom), 'data-period': 'custom', 'aria-expanded': String(custom), 'aria-controls': 'range-custom' }, 'Custom');
  const today = new Date().toISOString().slice(0, 10);
  const fromInput = h('input', { type: 'date', id: 'range-from', name: 'from', value: query.from, max: today, 'aria-describedby': 'range-from-err' });
  const toInput = h('input', { type: 'date', id: 'range-to', name: 'to', value: query.to, max: today, 'aria-describedby': 'range-to-err' });
  const fromErr = h('p', { class: 'field-err', id: 'range-from-err', 'data-err-for': 'from' });
  const toErr = h('p', { class: 'field-err', id: 'range-to-err', 'data-err-for': 'to' });
  const form = h('form', { class: 'range-custom', id: 'range-custom', novalidate: true, hidden: !custom, 'aria-label': 'Custom range' },
    h('label', { for: 'range-from' }, 'From'), fromInput,
    h('label', { for: 'range-to' }, 'To'), toInput,
    h('button', { type: 'submit', class: 'button-small', id: 'range-apply' }, 'Apply'),
    fromErr, toErr);

  const clearErrors = () => {
    for (const [input, slot] of [[fromInput, fromErr], [toInput, toErr]]) { slot.textContent = ''; input.removeAttribute('aria-invalid'); }
  };
  const fail = (input, slot, msg) => { slot.textContent = msg; input.setAttribute('aria-invalid', 'true'); };

  for (const b of periodBtns) {
    b.addEventListener('click', () => {
      clearErrors();
      form.hidden = true;
      change({ ...query, period: b.getAttribute('data-period'), from: '', to: '' });
    });
  }
  customBtn.addEventListener('click', () => {
    form.hidden = false;
    customBtn.setAttribute('aria-expanded', 'true');
    fromInput.focus();
  });
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    clearErrors();
    const from = fromInput.value;
    const to = toInput.value;
    let ok = true;
    if (!DATE.test(from)) { fail(fromInput, fromErr, 'Choose the first day.'); ok = false; }
    if (!DATE.test(to)) { fail(toInput, toErr, 'Choose the last day.'); ok = false; }
    if (ok && to < from) { fail(toInput, toErr, 'The last day must not be before the first.'); ok = false; }
    if (!ok) { form.querySelector('[aria-invalid="true"]').focus(); return; }
    change({ ...query, from, to });
  });

  let compareBox = null;
  if (compare) {
    const id = nextId('compare');
    compareBox = h('label', { class: 'check', for: id },
      h('input', { type: 'checkbox', id, name: 'compare', 'data-compare': '', checked: query.compare,
        onchange: (ev) => change({ ...query, compare: ev.currentTarget.checked }) }),
      'Compare with the previous period');
  }
  const bar = h('div', { class: 'query-bar', id: 'analytics-query' },
    h('div', { class: 'segmented', role: 'group', 'aria-label': 'Range' }, periodBtns, customBtn),
    compareBox,
    form);
  bar.showErrors = (err) => {
    if (!(err instanceof ApiError) || err.status !== 422) return false;
    let shown = false;
    for (const fe of err.errors) {
      if (fe.field === 'from') { form.hidden = false; fail(fromInput, fromErr, fe.message); shown = true; }
      if (fe.field === 'to') { form.hidden = false; fail(toInput, toErr, fe.message); shown = true; }
    }
    return shown;
  };
  return bar;
}

/**
 * The active filters as removable chips (each a button: clicking it drops that filter), with
 * "Clear all" when there are several. Empty when nothing is filtered.
 */
export function filterChips(query, change, format = (k, v) => v) {
  const keys = FILTERS.map(([k]) => k).filter((k) => query.filters[k] !== undefined);
  const chips = keys.map((k) => {
    const shown = format(k, query.filters[k]);
    return h('button', {
      type: 'button', class: 'chip', 'data-filter': k, 'data-value': query.filters[k],
      'aria-label': `Remove filter ${filterLabel(k)}: ${shown}`,
      onclick: () => {
        const filters = { ...query.filters };
        delete filters[k];
        change({ ...query, filters });
      },
    }, h('span', null, `${filterLabel(k)}: `, h('strong', null, shown)), h('span', { class: 'chip-x', 'aria-hidden': 'true' }, ' \u00d7'));
  });
  return h('div', { class: 'chips', id: 'analytics-filters', role: 'group', 'aria-label': 'Filters' },
    chips.length ? h('span', { class: 'muted small' }, 'Filtered by') : null,
    chips,
    chips.length > 1 ? h('button', { type: 'button', class: 'button-link', id: 'clear-filters', onclick: () => change({ ...query, filters: {} }) }, 'Clear all') : null);
}

/** A percentage as the API gives it (0 to 100, a float): one decimal. */
export function fmtPct(v) {
  const n = Number(v);
  return Number.isFinite(n) ? `${(Math.round(n * 10) / 10).toFixed(1)}%` : '\u2014';
}

/** Whole seconds as "45s", "3m 05s" or "1h 02m". */
export function fmtDuration(v) {
  const s = Math.max(0, Math.round(Number(v) || 0));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
