// Shipmate dashboard: a project's analytics for a period: the headline figures, a chart of views
// and visitors (SVG, redrawn on resize), and ranked tables of pages, referrers, countries, devices,
// events and UTM tags.

import { $, capitalize, fmtNum, h, nextId, plural, stat, svg } from './dom.js';
import { api, q } from './api.js';
import { state } from './state.js';
import { announce, busy, hideBanner, pageHead, setMain, setTitle, showError } from './ui.js';

const PERIODS = [['7d', '7 days'], ['30d', '30 days'], ['90d', '90 days']];

let chosen = '30d'; // the period on display, kept while the dashboard is open

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

/** A ranked table with a proportional bar behind each label. */
function breakdown({ id, title, rows, labelKey, labelHead, countKey = 'views', countHead = 'Views', format = (v) => v || '(none)' }) {
  const list = Array.isArray(rows) ? rows : [];
  const max = Math.max(1, ...list.map((r) => Number(r[countKey]) || 0));
  const body = list.length
    ? h('div', { class: 'table-wrap' }, h('table', { id },
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, labelHead), h('th', { scope: 'col', class: 'num' }, countHead), h('th', { scope: 'col', class: 'num' }, 'Visitors'))),
      h('tbody', null, list.map((r) => {
        const bar = h('span', { class: 'bar', 'aria-hidden': 'true' });
        bar.style.width = `${Math.max(2, Math.round(((Number(r[countKey]) || 0) / max) * 100))}%`; // CSSOM: allowed by the CSP
        return h('tr', null,
          h('td', { class: 'bar-cell cell-clip' }, bar, h('span', { class: 'bar-label' }, format(r[labelKey]))),
          h('td', { class: 'num' }, fmtNum(r[countKey])),
          h('td', { class: 'num' }, fmtNum(r.visitors)));
      }))))
    : h('p', { class: 'muted' }, 'No data for this period.');
  return h('section', { class: 'card', 'aria-labelledby': `${id}-title` }, h('h2', { id: `${id}-title` }, title), body);
}

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
    ? `${fmtNum(totalViews)} page views and ${fmtNum(totalVisitors)} visitors over ${plural(n, interval, `${interval}s`)}` +
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

export async function screenAnalytics(ctx) {
  const { project, alive } = ctx;
  setTitle('Analytics', project.name);
  const periodBtns = PERIODS.map(([value, label]) => h('button', { type: 'button', 'aria-pressed': String(value === chosen), 'data-period': value }, label));
  const refresh = h('button', { type: 'button', class: 'button-secondary', id: 'analytics-refresh' }, 'Refresh');
  const switcher = h('div', { class: 'segmented', role: 'group', 'aria-label': 'Period' }, periodBtns);
  const statsBox = h('div', { class: 'stats', id: 'analytics-overview' });
  const chartBox = h('div', { id: 'analytics-chart' });
  const chartCard = h('section', { class: 'card', 'aria-labelledby': 'chart-heading' },
    h('div', { class: 'card-head' }, h('h2', { id: 'chart-heading' }, 'Visitors and page views'),
      h('p', { class: 'legend', 'aria-hidden': 'true' }, h('span', { class: 'lg-views' }, 'Page views'), h('span', { class: 'lg-visitors' }, 'Visitors'))),
    chartBox);
  const tablesBox = h('div', { class: 'tables', id: 'analytics-tables' });
  const subtitle = h('p', { class: 'muted', id: 'analytics-period' });
  const head = pageHead('Analytics', null, project, switcher, refresh);
  $('h1', head).after(subtitle);
  setMain(head, statsBox, chartCard, tablesBox);

  let lastSeries = null;
  state.onResize = () => { if (lastSeries && alive()) drawChart(chartBox, lastSeries); };

  for (const b of periodBtns) {
    b.addEventListener('click', () => {
      chosen = b.getAttribute('data-period');
      for (const o of periodBtns) o.setAttribute('aria-pressed', String(o === b));
      load(true);
    });
  }
  refresh.addEventListener('click', () => busy(refresh, () => load(true)));

  async function load(announceDone) {
    const period = chosen;
    const label = (PERIODS.find(([v]) => v === period) || [period, period])[1];
    subtitle.textContent = `Last ${label} \u00b7 cookie-free, bots excluded`;
    $('#main').setAttribute('aria-busy', 'true');
    const qs = q({ project_id: project.id, period });
    const names = ['overview', 'timeseries', 'pages', 'referrers', 'countries', 'devices', 'events', 'utm'];
    const settled = await Promise.allSettled(names.map((n) => api('GET', `/v1/analytics/${n}?${qs}`)));
    if (!alive() || period !== chosen) return;
    $('#main').removeAttribute('aria-busy');
    const r = {};
    let firstError = null;
    names.forEach((n, i) => {
      if (settled[i].status === 'fulfilled') r[n] = settled[i].value || {};
      else firstError = firstError || settled[i].reason;
    });
    if (firstError) { showError(firstError, 'Some analytics could not be loaded'); if (!state.me) return; } else hideBanner();

    const o = r.overview || {};
    statsBox.replaceChildren(
      stat('Page views', fmtNum(o.page_views || 0), 'page_views'),
      stat('Unique visitors', fmtNum(o.unique_visitors || 0), 'unique_visitors'),
      stat('Top page', o.top_page || '\u2014', 'top_page', true),
      stat('Top referrer', o.top_referrer || '\u2014', 'top_referrer', true));
    if (r.timeseries) { lastSeries = r.timeseries; drawChart(chartBox, lastSeries); }
    else chartBox.replaceChildren(h('p', { class: 'muted' }, 'The chart could not be loaded.'));

    const d = r.devices || {};
    const u = r.utm || {};
    tablesBox.replaceChildren(
      breakdown({ id: 'an-pages', title: 'Pages', rows: (r.pages || {}).data, labelKey: 'page', labelHead: 'Page' }),
      breakdown({ id: 'an-referrers', title: 'Referrers', rows: (r.referrers || {}).data, labelKey: 'referrer', labelHead: 'Referrer', format: (v) => v || 'Direct / none' }),
      breakdown({ id: 'an-countries', title: 'Countries', rows: (r.countries || {}).data, labelKey: 'country', labelHead: 'Country', format: countryName }),
      breakdown({ id: 'an-devices', title: 'Devices', rows: d.data, labelKey: 'device', labelHead: 'Device', format: (v) => capitalize(v || 'unknown') }),
      breakdown({ id: 'an-browsers', title: 'Browsers', rows: d.browsers, labelKey: 'browser', labelHead: 'Browser', format: (v) => v || 'Unknown' }),
      breakdown({ id: 'an-os', title: 'Operating systems', rows: d.operating_systems, labelKey: 'os', labelHead: 'OS', format: (v) => v || 'Unknown' }),
      breakdown({ id: 'an-events', title: 'Events', rows: (r.events || {}).data, labelKey: 'name', labelHead: 'Event', countKey: 'count', countHead: 'Count' }),
      breakdown({ id: 'an-utm-sources', title: 'UTM sources', rows: u.sources, labelKey: 'utm_source', labelHead: 'Source' }),
      breakdown({ id: 'an-utm-mediums', title: 'UTM mediums', rows: u.mediums, labelKey: 'utm_medium', labelHead: 'Medium' }),
      breakdown({ id: 'an-utm-campaigns', title: 'UTM campaigns', rows: u.campaigns, labelKey: 'utm_campaign', labelHead: 'Campaign' }),
    );
    if (announceDone && !firstError) announce(`Analytics for the last ${label} updated.`);
  }

  statsBox.append(h('p', { class: 'loading' }, 'Loading\u2026'));
  await load(false);
}
