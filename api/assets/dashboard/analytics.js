// Shipmate dashboard: a project's analytics. The Overview tab has the headline figures (with the
// previous period's beside them when comparing), a chart of views and visitors (SVG, redrawn on
// resize), and ranked tables of pages, entry and exit pages, referrers, countries, devices, browsers,
// operating systems, events and UTM tags: clicking a row filters every figure by it. The Goals,
// Funnels and Sharing tabs are modules of their own (analytics-goals.js, analytics-funnels.js,
// analytics-share.js); the range, the comparison and the filters live in the address
// (analytics-query.js), and a realtime counter polls while the page is visible. A project without
// events shows the script tag and waits for the first one (analytics-install.js).

import { $, capitalize, fmtNum, h, nextId, options, plural, stat, svg } from './dom.js';
import { api, ApiError, q } from './api.js';
import { state } from './state.js';
import { announce, busy, handleAuthLoss, hideBanner, later, pageHead, setMain, setTitle, showError } from './ui.js';
import { projectPath } from './router.js';
import { segmentPicker } from './analytics-segments.js';
import { goalPicker } from './analytics-goal-picker.js';
import { filterChips, fmtDuration, fmtPct, queryBar, rangeLabel, readParams, readQuery, searchOf, writeQuery } from './analytics-query.js';
import { goalsView } from './analytics-goals.js';
import { journeysView } from './analytics-journeys.js';
import { funnelsView } from './analytics-funnels.js';
import { shareView } from './analytics-share.js';
import { importsView } from './analytics-imports.js';
import { firstEventCard } from './analytics-install.js';

/** The realtime counter's polling interval while the page is visible. */
const REALTIME_MS = 10_000;
/** After the first event is seen, how often and how many times to read again until the figures show it. */
const SEEN_RETRY_MS = 2000;
const SEEN_RETRIES = 10;

let regionNames = null;
function countryName(code) {
  if (!code) return 'Unknown';
  try {
    regionNames = regionNames || new Intl.DisplayNames(['en'], { type: 'region' });
    const name = regionNames.of(String(code).toUpperCase());
    return name && name !== code ? `${name} (${code})` : code;
  } catch (e) {
    return code;
  }
}

/**
 * A ranked table with a proportional bar behind each label. With `filter` (the query parameter the
 * label is a value of) and `onFilter`, each row with a value filters the view by it when clicked.
 */
/** `extra`: more columns, each `{ key, head, format }`, shown when some row has a value (engagement on pages). */
function breakdown({ id, title, rows, labelKey, labelHead, countKey = 'views', countHead = 'Views', format = (v) => v || '(none)', filter, onFilter, active, bare, extra = [] }) {
  const list = Array.isArray(rows) ? rows : [];
  const more = extra.filter((c) => list.some((r) => r[c.key] !== null && r[c.key] !== undefined));
  const max = Math.max(1, ...list.map((r) => Number(r[countKey]) || 0));
  const canFilter = filter && onFilter && active && active[filter] === undefined;
  const body = list.length
    ? h('div', { class: 'table-wrap' }, h('table', { id, 'data-filter-key': canFilter ? filter : null },
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, labelHead), h('th', { scope: 'col', class: 'num' }, countHead), h('th', { scope: 'col', class: 'num' }, 'Visitors'),
        more.map((c) => h('th', { scope: 'col', class: 'num' }, c.head)))),
      h('tbody', null, list.map((r) => {
        const bar = h('span', { class: 'bar', 'aria-hidden': 'true' });
        bar.style.width = `${Math.max(2, Math.round(((Number(r[countKey]) || 0) / max) * 100))}%`; // CSSOM: allowed by the CSP
        const value = r[labelKey];
        const shown = format(value);
        const clickable = canFilter && value !== null && value !== undefined && value !== '';
        const label = clickable
          ? h('button', { type: 'button', class: 'row-filter bar-label', 'data-filter-value': String(value), title: `Filter by ${labelHead.toLowerCase()} ${shown}` }, shown)
          : h('span', { class: 'bar-label' }, shown);
        const tr = h('tr', { class: clickable ? 'filterable' : null },
          h('td', { class: 'bar-cell cell-clip' }, bar, label),
          h('td', { class: 'num' }, fmtNum(r[countKey])),
          h('td', { class: 'num' }, fmtNum(r.visitors)),
          more.map((c) => h('td', { class: 'num', 'data-col': c.key }, r[c.key] === null || r[c.key] === undefined ? '\u2013' : c.format(r[c.key]))));
        // The whole row is the target for a pointer; the button inside is the one for the keyboard.
        if (clickable) tr.addEventListener('click', () => onFilter(filter, String(value)));
        return tr;
      }))))
    : h('p', { class: 'muted' }, 'No data for this period.');
  if (bare) return body; // the table alone, for a card that has its own heading
  // A table with a goal's columns takes the whole row: half of it would hide the last ones.
  return h('section', { class: more.length > 2 ? 'card wide' : 'card', 'aria-labelledby': `${id}-title` }, h('h2', { id: `${id}-title` }, title), body);
}

/** The pages' engagement medians (sm.plus.js with data-track="engagement"). */
const ENGAGEMENT = [
  { key: 'scroll_depth', head: 'Scroll', format: (v) => `${v}%` },
  { key: 'time_on_page', head: 'Time', format: (v) => (v >= 60 ? `${Math.floor(v / 60)}m ${String(v % 60).padStart(2, '0')}s` : `${v}s`) },
];

/** A goal's figures on the sources' rows ("Sources by goal"). */
const CONVERSIONS = [
  { key: 'conversions', head: 'Conversions', format: fmtNum },
  { key: 'conversion_rate', head: 'CR', format: fmtPct },
  { key: 'revenue', head: 'Revenue', format: (v) => `${v.total} ${v.currency}` },
];

function niceStep(raw) {
  const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-9)));
  const f = raw / pow;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * pow;
}

function chartLabel(iso, interval, long) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const day = d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short' });
  if (interval !== 'hour') return long ? d.toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' }) : day;
  const time = d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  return `${day} ${time}`;
}

function drawChart(box, ts) {
  const points = (ts && Array.isArray(ts.data) ? ts.data : []).map((p) => ({ date: p.date, views: Number(p.views) || 0, visitors: Number(p.visitors) || 0 }));
  const interval = ts && ts.interval === 'hour' ? 'hour' : 'day';
  const W = Math.max(280, Math.round(box.clientWidth || 720));
  const H = W < 500 ? 200 : 260;
  const L = 40; const R = 12; const T = 12; const B = 26;
  const peak = Math.max(0, ...points.map((p) => Math.max(p.views, p.visitors)));
  const step = niceStep(Math.max(1, peak) / 4);
  const yMax = step * 4;
  const n = points.length;
  const x = (i) => L + (n <= 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (n - 1));
  const y = (v) => T + (H - T - B) * (1 - v / yMax);
  const totalViews = points.reduce((s, p) => s + p.views, 0);
  const totalVisitors = points.reduce((s, p) => s + p.visitors, 0);
  const titleId = nextId('chart-title');
  const descId = nextId('chart-desc');
  let best = null;
  for (const p of points) if (!best || p.views > best.views) best = p;
  const desc = n
    ? `${plural(totalViews, 'page view', 'page views')} and ${plural(totalVisitors, 'visitor', 'visitors')} over ${plural(n, interval, `${interval}s`)}` +
      (best && best.views ? `; busiest ${interval} ${chartLabel(best.date, interval, true)} with ${plural(best.views, 'view', 'views')}.` : '.')
    : 'No data for this period.';

  const el = svg('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-labelledby': `${titleId} ${descId}` },
    svg('title', { id: titleId }, `Page views and visitors per ${interval}`),
    svg('desc', { id: descId }, desc));
  for (let k = 0; k <= 4; k++) {
    const v = step * k;
    el.append(svg('line', { class: 'grid', x1: L, x2: W - R, y1: y(v), y2: y(v) }));
    el.append(svg('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end' }, fmtNum(v)));
  }
  if (n) {
    const line = (key) => points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)} ${y(p[key]).toFixed(1)}`).join(' ');
    el.append(svg('path', { class: 'area-views', d: `${line('views')} L${x(n - 1).toFixed(1)} ${y(0)} L${x(0).toFixed(1)} ${y(0)} Z` }));
    el.append(svg('path', { class: 'line-views', d: line('views') }));
    el.append(svg('path', { class: 'line-visitors', d: line('visitors') }));
    if (n === 1) {
      el.append(svg('circle', { class: 'dot-views', cx: x(0), cy: y(points[0].views), r: 3.5 }));
    }
    const labels = Math.max(2, Math.min(W < 500 ? 3 : 6, n));
    const used = new Set();
    for (let k = 0; k < labels; k++) {
      const i = n === 1 ? 0 : Math.round((k * (n - 1)) / (labels - 1));
      if (used.has(i)) continue;
      used.add(i);
      const anchor = i === 0 ? 'start' : i === n - 1 ? 'end' : 'middle';
      el.append(svg('text', { x: x(i), y: H - 6, 'text-anchor': n === 1 ? 'middle' : anchor }, chartLabel(points[i].date, interval, false)));
    }
  }
  box.replaceChildren(el);
}

/** The tabs of the analytics section: `/analytics`, `/analytics/goals`, ... */
const TABS = [['', 'Overview'], ['journeys', 'Journeys'], ['goals', 'Goals'], ['funnels', 'Funnels'], ['sharing', 'Sharing'], ['imports', 'Imports']];
/** The tabs that read no range or filters. */
const FIXED = new Set(['sharing', 'imports']);

/** The overview's figures: key, label, format, and whether a fall is good news (bounce rate). */
const METRICS = [
  ['page_views', 'Page views', fmtNum],
  ['unique_visitors', 'Unique visitors', fmtNum],
  ['visits', 'Visits', fmtNum],
  ['bounce_rate', 'Bounce rate', fmtPct, true],
  ['visit_duration', 'Visit duration', fmtDuration],
];

/** How a filter's value reads in a chip. */
function filterText(key, value) {
  if (key === 'country') return countryName(value);
  if (key === 'device') return capitalize(value);
  return value;
}

/**
 * The change from the previous period beside a figure: relative for counts, in percentage points
 * for the bounce rate; green when it is good news.
 */
function delta(key, now, before, format, lowerIsBetter) {
  const a = Number(now) || 0;
  const b = Number(before) || 0;
  let text;
  let dir = Math.sign(a - b);
  if (key === 'bounce_rate') {
    const pts = Math.round((a - b) * 10) / 10;
    text = `${pts > 0 ? '+' : ''}${pts.toFixed(1)} pts`;
    dir = Math.sign(pts);
  } else if (b === 0) {
    text = a === 0 ? '0%' : 'new';
  } else {
    const pct = Math.round(((a - b) / b) * 100);
    text = `${pct > 0 ? '+' : ''}${pct}%`;
    if (pct === 0) dir = 0;
  }
  const good = lowerIsBetter ? dir < 0 : dir > 0;
  const cls = dir === 0 ? 'delta' : `delta ${good ? 'delta-up' : 'delta-down'}`;
  return h('span', { class: cls, 'data-change': key, 'data-previous': String(before ?? '') },
    `${text} `, h('span', { class: 'muted' }, `(was ${format(b)})`));
}

export async function screenAnalytics(ctx) {
  const { project, alive } = ctx;
  const tab = TABS.some(([id]) => id && id === ctx.sub) ? ctx.sub : '';
  let query = readQuery(project.id);
  writeQuery(project.id, query);
  const tabLabel = TABS.find(([id]) => id === tab)[1];
  setTitle(tab ? tabLabel : 'Analytics', tab ? 'Analytics' : null, project.name);

  const refresh = h('button', { type: 'button', class: 'button-secondary', id: 'analytics-refresh' }, 'Refresh');
  const realtimeBox = h('p', { class: 'realtime', id: 'realtime', title: 'Visitors in the last 5 minutes, page views in the last 30' });
  const subtitle = h('p', { class: 'muted', id: 'analytics-period' });
  const head = pageHead('Analytics', null, project, realtimeBox, FIXED.has(tab) ? null : refresh);
  $('h1', head).after(subtitle);
  const tabLinks = TABS.map(([id, label]) => h('a', {
    href: projectPath(project, 'analytics', id), 'data-nav': '', 'data-tab': id || 'overview', 'aria-current': id === tab ? 'page' : null,
  }, label));
  const tabs = h('nav', { class: 'tabs', id: 'analytics-tabs', 'aria-label': 'Analytics views' }, tabLinks);
  const barBox = h('div', { id: 'analytics-bar' });
  let bar = null;

  const env = { project, alive, sub2: ctx.sub2, onFilter: addFilter, report, linkQuery: () => searchOf(query) };
  const view = tab === 'journeys' ? journeysView(env)
    : tab === 'goals' ? goalsView(env)
    : tab === 'funnels' ? funnelsView(env)
      : tab === 'sharing' ? shareView(env)
        : tab === 'imports' ? importsView(env)
          : overviewView(env);
  const usesQuery = !FIXED.has(tab);
  const segments = segmentPicker({ project, change: (next) => setQuery(next), report });
  const goals = tab === '' ? goalPicker({ project, change: (next) => setQuery(next), report }) : null;

  function paint() {
    const s = searchOf(query);
    tabLinks.forEach((a, i) => a.setAttribute('href', `${projectPath(project, 'analytics', TABS[i][0])}?${s}`));
    subtitle.textContent = usesQuery ? `${rangeLabel(query)} \u00b7 cookie-free, bots excluded` : tab === 'imports' ? 'History brought from another tool' : 'Read-only links to this dashboard, for people without an account';
    if (!usesQuery) { barBox.replaceChildren(); return; }
    const focused = document.activeElement;
    const refocus = focused && barBox.contains(focused)
      ? (focused.getAttribute('data-period') ? `[data-period="${focused.getAttribute('data-period')}"]` : focused.id ? `#${focused.id}` : null)
      : null;
    bar = queryBar(query, setQuery, { compare: tab === '' });
    segments.update(query);
    if (goals) goals.update(query);
    barBox.replaceChildren(...[bar, segments.node, goals && goals.node, filterChips(query, setQuery, filterText)].filter(Boolean));
    if (refocus) { const el = $(refocus, barBox); if (el) el.focus(); }
    else if (focused && !focused.isConnected) { const first = $('#analytics-filters .chip', barBox) || $('[aria-pressed="true"]', barBox); if (first) first.focus(); }
  }

  function setQuery(next) {
    query = next;
    writeQuery(project.id, query);
    paint();
    pollRealtime();
    return view.load(query, true);
  }

  function addFilter(key, value) {
    if (query.filters[key] === value) return;
    setQuery({ ...query, filters: { ...query.filters, [key]: value } });
    announce(`Filtered by ${key.replace(/_/g, ' ')} ${value}.`);
  }

  /** A failed read: a bad range beside the dates, anything else in the banner. */
  function report(err, title) {
    if (!alive()) return;
    if (handleAuthLoss(err)) return;
    if (bar && bar.showErrors(err)) { announce('The range could not be used.'); return; }
    showError(err, title);
  }

  let realtimeSeq = 0; // an answer for filters since changed must not overwrite a newer one
  async function pollRealtime() {
    if (!alive() || document.visibilityState !== 'visible') return;
    const mine = ++realtimeSeq;
    try {
      const r = await api('GET', `/v1/analytics/realtime?${q({ project_id: project.id, ...readParams(query, { range: false }) })}`);
      if (!alive() || mine !== realtimeSeq) return;
      const visitors = Number(r && r.visitors) || 0;
      realtimeBox.replaceChildren(h('span', { class: 'pulse', 'aria-hidden': 'true' }),
        h('span', null, h('strong', { 'data-metric': 'realtime_visitors' }, fmtNum(visitors)), ` ${visitors === 1 ? 'visitor' : 'visitors'} now`,
          h('span', { class: 'muted' }, ` \u00b7 ${plural(Number(r && r.page_views) || 0, 'view', 'views')} in 30 min`)));
    } catch (e) {
      if (alive()) handleAuthLoss(e); // a missed beat keeps the last figure
    }
  }
  // Polls every 10 s; a hidden page skips its beats and catches up the moment it is shown again.
  const tick = () => { if (!alive()) return; pollRealtime(); later(tick, REALTIME_MS); };
  const onVisible = () => {
    if (!alive()) { document.removeEventListener('visibilitychange', onVisible); return; }
    if (document.visibilityState === 'visible') pollRealtime();
  };
  document.addEventListener('visibilitychange', onVisible);

  refresh.addEventListener('click', () => busy(refresh, () => Promise.all([view.load(query, true), pollRealtime()])));
  paint();
  setMain(head, tabs, barBox, view.nodes);
  if (view.onResize) state.onResize = () => { if (alive()) view.onResize(); };
  later(tick, REALTIME_MS);
  await Promise.all([view.load(query, false), pollRealtime()]);
}

/** The Overview tab: the figures, the chart and the breakdown tables. */
function overviewView({ project, alive, onFilter, report }) {
  const statsBox = h('div', { class: 'stats', id: 'analytics-overview' }, h('p', { class: 'loading' }, 'Loading\u2026'));
  const chartBox = h('div', { id: 'analytics-chart' });
  const chartCard = h('section', { class: 'card', 'aria-labelledby': 'chart-heading' },
    h('div', { class: 'card-head' }, h('h2', { id: 'chart-heading' }, 'Visitors and page views'),
      h('p', { class: 'legend', 'aria-hidden': 'true' }, h('span', { class: 'lg-views' }, 'Page views'), h('span', { class: 'lg-visitors' }, 'Visitors'))),
    chartBox);
  const tablesBox = h('div', { class: 'tables', id: 'analytics-tables' });
  const props = propertiesCard(project, alive, report);
  let lastSeries = null;
  let seq = 0;
  let current = null; // the query on display, for the reload once the first event is seen
  let retries = 0;
  const first = firstEventCard(project, alive, () => load(current, false));

  async function load(query, announceDone) {
    const mine = ++seq;
    current = query;
    $('#main').setAttribute('aria-busy', 'true');
    const params = readParams(query);
    const qs = q({ project_id: project.id, ...params });
    const names = ['overview', 'timeseries', 'pages', 'entry-pages', 'exit-pages', 'referrers', 'countries', 'devices', 'events', 'utm'];
    // The sources' reads take the goal picked ("Sources by goal").
    const goal = query.goal ? `&${q({ goal: query.goal })}` : '';
    const extra = (n) => (n === 'overview' && query.compare ? '&compare=previous' : n === 'referrers' || n === 'utm' ? goal : '');
    const settled = await Promise.allSettled(names.map((n) => api('GET', `/v1/analytics/${n}?${qs}${extra(n)}`)));
    if (!alive() || mine !== seq) return;
    $('#main').removeAttribute('aria-busy');
    const r = {};
    let firstError = null;
    names.forEach((n, i) => {
      if (settled[i].status === 'fulfilled') r[n] = settled[i].value || {};
      else firstError = firstError || settled[i].reason;
    });
    if (firstError) { report(firstError, 'Some analytics could not be loaded'); if (!state.me) return; } else hideBanner();

    const o = r.overview || {};
    const prev = query.compare && o.previous && typeof o.previous === 'object' ? o.previous : null;
    statsBox.replaceChildren(
      ...METRICS.map(([key, label, format, lowerIsBetter]) => {
        const el = stat(label, format(o[key] || 0), key);
        if (prev) el.append(delta(key, o[key], prev[key], format, lowerIsBetter));
        return el;
      }),
      stat('Top page', o.top_page || '\u2014', 'top_page', true),
      stat('Top referrer', o.top_referrer || '\u2014', 'top_referrer', true));
    statsBox.classList.toggle('comparing', Boolean(prev));
    if (r.timeseries) { lastSeries = r.timeseries; drawChart(chartBox, lastSeries); }
    else chartBox.replaceChildren(h('p', { class: 'muted' }, 'The chart could not be loaded.'));

    const d = r.devices || {};
    const u = r.utm || {};
    const f = { onFilter, active: query.filters };
    tablesBox.replaceChildren(
      breakdown({ id: 'an-pages', title: 'Pages', rows: (r.pages || {}).data, labelKey: 'page', labelHead: 'Page', filter: 'page', extra: ENGAGEMENT, ...f }),
      breakdown({ id: 'an-referrers', title: 'Referrers', rows: (r.referrers || {}).data, labelKey: 'referrer', labelHead: 'Referrer', format: (v) => v || 'Direct / none', filter: 'referrer', extra: CONVERSIONS, ...f }),
      breakdown({ id: 'an-entry-pages', title: 'Entry pages', rows: (r['entry-pages'] || {}).data, labelKey: 'page', labelHead: 'Page', countKey: 'visits', countHead: 'Visits', filter: 'page', ...f }),
      breakdown({ id: 'an-exit-pages', title: 'Exit pages', rows: (r['exit-pages'] || {}).data, labelKey: 'page', labelHead: 'Page', countKey: 'visits', countHead: 'Visits', filter: 'page', ...f }),
      breakdown({ id: 'an-countries', title: 'Countries', rows: (r.countries || {}).data, labelKey: 'country', labelHead: 'Country', format: countryName, filter: 'country', ...f }),
      breakdown({ id: 'an-devices', title: 'Devices', rows: d.data, labelKey: 'device', labelHead: 'Device', format: (v) => capitalize(v || 'unknown'), filter: 'device', ...f }),
      breakdown({ id: 'an-browsers', title: 'Browsers', rows: d.browsers, labelKey: 'browser', labelHead: 'Browser', format: (v) => v || 'Unknown', filter: 'browser', ...f }),
      breakdown({ id: 'an-os', title: 'Operating systems', rows: d.operating_systems, labelKey: 'os', labelHead: 'OS', format: (v) => v || 'Unknown', filter: 'os', ...f }),
      breakdown({ id: 'an-events', title: 'Events', rows: (r.events || {}).data, labelKey: 'name', labelHead: 'Event', countKey: 'count', countHead: 'Count', filter: 'event', ...f }),
      breakdown({ id: 'an-utm-sources', title: 'UTM sources', rows: u.sources, labelKey: 'utm_source', labelHead: 'Source', filter: 'utm_source', extra: CONVERSIONS, ...f }),
      breakdown({ id: 'an-utm-mediums', title: 'UTM mediums', rows: u.mediums, labelKey: 'utm_medium', labelHead: 'Medium', filter: 'utm_medium', extra: CONVERSIONS, ...f }),
      breakdown({ id: 'an-utm-campaigns', title: 'UTM campaigns', rows: u.campaigns, labelKey: 'utm_campaign', labelHead: 'Campaign', filter: 'utm_campaign', extra: CONVERSIONS, ...f }),
    );
    props.update(query, ((r.events || {}).data || []).map((e) => e.name));
    if (announceDone && !firstError) announce(`Analytics for ${rangeLabel(query).replace(/^Last/, 'the last')} updated.`);
    if (!firstError) await emptyOrNot(query, mine, !Object.keys(query.filters).length && !query.segment && !((r.events || {}).data || []).length);
  }

  /** An unfiltered read without events: the install card waits for the first one, in place of the tables. */
  async function emptyOrNot(query, mine, empty) {
    if (!empty) first.hide();
    else if (!first.seen) await first.check();
    else if (retries < SEEN_RETRIES) { retries += 1; later(() => { if (mine === seq) load(query, false); }, SEEN_RETRY_MS); }
    if (!alive() || mine !== seq) return;
    for (const el of [chartCard, tablesBox, props.card]) el.classList.toggle('hidden', first.waiting);
  }

  return {
    nodes: [first.card, statsBox, chartCard, tablesBox, props.card],
    load,
    onResize: () => { if (lastSeries) drawChart(chartBox, lastSeries); },
  };
}

/**
 * Custom event properties: the values of one property of one event (`sm('signup', {plan: 'pro'})`),
 * each with its count and visitors, for the range and filters on display. The choice is kept while
 * the range and filters change.
 */
function propertiesCard(project, alive, report) {
  const eventSelect = h('select', { id: 'prop-event', name: 'event' });
  const propInput = h('input', { type: 'text', id: 'prop-name', name: 'property', placeholder: 'plan', autocomplete: 'off', spellcheck: 'false' });
  const show = h('button', { type: 'submit', class: 'button-small' }, 'Show values');
  const err = h('p', { class: 'field-err', id: 'prop-err', 'data-err-for': 'property' });
  const result = h('div', { id: 'an-properties-result', 'aria-live': 'polite' });
  const form = h('form', { class: 'query-bar', id: 'prop-form', novalidate: true, 'aria-describedby': 'prop-err' },
    h('label', { for: 'prop-event' }, 'Event'), eventSelect,
    h('label', { for: 'prop-name' }, 'Property'), propInput, show);
  const card = h('section', { class: 'card', 'aria-labelledby': 'an-properties-title', id: 'an-properties-card' },
    h('h2', { id: 'an-properties-title' }, 'Event properties'),
    h('p', { class: 'muted' }, 'The values of a custom property sent with an event, e.g. sm(\u2019signup\u2019, { plan: \u2019pro\u2019 }).'),
    form, err, result);
  let query = null;
  let chosen = null; // {event, property} once asked
  let seq = 0;

  async function read() {
    if (!chosen || !query) return;
    const mine = ++seq;
    let res;
    try {
      res = await api('GET', `/v1/analytics/properties?${q({ project_id: project.id, ...readParams(query), event: chosen.event, property: chosen.property })}`);
    } catch (e) {
      if (!alive() || mine !== seq) return;
      if (e instanceof ApiError && e.status === 422 && e.errors.length) { err.textContent = e.errors.map((fe) => `${fe.field}: ${fe.message}`).join('; '); return; }
      report(e, 'Could not load the property values');
      return;
    }
    if (!alive() || mine !== seq) return;
    result.replaceChildren(breakdown({ id: 'an-properties', bare: true, rows: (res && res.data) || [], labelKey: 'value', labelHead: 'Value', countKey: 'count', countHead: 'Count', format: (v) => (v === null || v === undefined || v === '' ? '(none)' : String(v)) }));
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    err.textContent = '';
    const property = propInput.value.trim();
    if (!eventSelect.value) { err.textContent = 'There are no custom events in this range.'; return; }
    if (!property) { err.textContent = 'Name the property, e.g. plan.'; propInput.focus(); return; }
    chosen = { event: eventSelect.value, property };
    busy(show, read);
  });

  return {
    card,
    update(next, names) {
      query = next;
      const custom = [...new Set(names.filter((n) => n && n !== 'page_view'))];
      if (chosen && !custom.includes(chosen.event)) custom.push(chosen.event);
      const current = eventSelect.value || (chosen && chosen.event) || next.filters.event || '';
      eventSelect.replaceChildren(...options(custom.map((n) => [n, n]), current));
      if (current && custom.includes(current)) eventSelect.value = current;
      show.disabled = !custom.length;
      read();
    },
  };
}
