// Headless Chromium test of the dashboard's analytics exploration against a running shipmate-api and
// shipmate-worker: clicking rows to filter (chips kept in the address across a reload), the range
// picker with custom dates, the comparison, the visits cards, entry and exit pages, the realtime
// counter's polling, goals, funnels, share links and the weekly report switch. Run through
// tests/browser/run.sh (BROWSER_TESTS=analytics-explore for this file alone).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';

import { API, SHOTS, PHONE, useBrowser, api, login, setup } from './support.mjs';

const browser = useBrowser();

// Three visitors (the visitor is the IP and user agent of the day), on three devices.
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0';

async function signedInPage(token, viewport = { width: 1280, height: 900 }) {
  const ctx = await browser().newContext({ viewport });
  ctx.setDefaultTimeout(15_000);
  await ctx.addCookies([{ name: 'shipmate_session', value: token, url: API }]);
  const page = await ctx.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text()); });
  return { ctx, page, problems };
}

/** Polls `read()` until it equals `want` (deadline 30 s by default). */
async function until(what, read, want, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  let got;
  for (;;) {
    got = await read();
    if (JSON.stringify(got) === JSON.stringify(want)) return;
    if (Date.now() > deadline) assert.fail(`${what}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const text = (page, sel) => page.locator(sel).first().textContent().then((t) => (t || '').trim(), () => '');
const metric = (page, key) => text(page, `[data-metric="${key}"]`);
const param = (page, name) => new URL(page.url()).searchParams.get(name);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A table's rows as [label, count] pairs. */
async function rows(page, id) {
  return page.$$eval(`#${id} tbody tr`, (trs) => trs.map((tr) => [tr.cells[0].textContent.trim(), tr.cells[1].textContent.trim()]).sort());
}

async function shot(page, name) {
  await page.evaluate(() => { const t = document.querySelector('#status'); if (t) t.textContent = ''; });
  await page.screenshot({ path: path.join(SHOTS, `analytics-${name}.png`), fullPage: true });
}

/** One page view or event from a visitor; a second apart, so each visit's pages keep their order. */
async function send(key, ua, event) {
  const res = await api('POST', '/v1/analytics/events', { key, headers: { 'User-Agent': ua }, body: event, expect: 202 });
  assert.equal(res.accepted, 1);
  await sleep(1100);
}

const view = (p, extra = {}) => ({ name: 'page_view', url: `https://acme.example${p}`, screen_width: 1280, ...extra });

test('analytics: rows filter, ranges, comparison, visits, realtime, goals, funnels, sharing, weekly report', { timeout: 240_000 }, async () => {
  const { token, project, key } = await setup('explore');
  // Visitor A (desktop): / -> /pricing -> signup. B (mobile): / -> /docs. C (desktop): /pricing only.
  await send(key, CHROME, view('/', { referrer: 'https://news.ycombinator.com/item?id=1', utm_source: 'newsletter' }));
  await send(key, IPHONE, view('/', { screen_width: 390 }));
  await send(key, FIREFOX, view('/pricing'));
  await send(key, CHROME, view('/pricing'));
  await send(key, IPHONE, view('/docs', { screen_width: 390 }));
  await send(key, CHROME, { name: 'signup', url: 'https://acme.example/pricing', properties: { plan: 'pro' }, revenue: { amount: '49.00', currency: 'EUR' } });
  const qs = `project_id=${project.id}&period=7d`;
  await until('events stored', async () => {
    const o = await api('GET', `/v1/analytics/overview?${qs}`, { token, expect: 200 });
    return [o.page_views, o.unique_visitors];
  }, [5, 3]);
  await until('visits closed', async () => (await api('GET', `/v1/analytics/overview?${qs}`, { token, expect: 200 })).visits, 3);

  const { ctx, page, problems } = await signedInPage(token);
  try {
    // The overview: the visits cards, entry and exit pages.
    await page.goto(`${API}/dashboard/p/${project.id}/analytics?period=7d`);
    await page.getByRole('heading', { level: 1, name: 'Analytics' }).waitFor();
    // Known race (reads.rs `Window::of`): a read that lands while the worker's summary pass moves
    // `covered_until` counts the moved events in both the summaries and the raw tail. It showed as
    // 6 page views once under a full CI run; until it is fixed, the view is loaded again.
    for (let load = 1; ; load++) {
      try {
        await until('page views shown', () => metric(page, 'page_views'), '5', 10_000);
        break;
      } catch (e) {
        if (load === 3) throw e;
        await page.reload();
      }
    }
    assert.equal(await page.getAttribute('[data-period="7d"]', 'aria-pressed'), 'true');
    assert.equal(await metric(page, 'unique_visitors'), '3');
    assert.equal(await metric(page, 'visits'), '3');
    assert.equal(await metric(page, 'bounce_rate'), '33.3%', 'one visit of three saw one page');
    assert.match(await metric(page, 'visit_duration'), /^\d+s$/);
    assert.deepEqual(await rows(page, 'an-entry-pages'), [['/', '2'], ['/pricing', '1']]);
    assert.deepEqual(await rows(page, 'an-exit-pages'), [['/docs', '1'], ['/pricing', '2']]);
    // A custom event's property: its values with counts.
    await page.selectOption('#prop-event', 'signup');
    await page.fill('#prop-name', 'plan');
    await page.click('#prop-form button[type="submit"]');
    await page.locator('#an-properties tbody tr').waitFor();
    assert.deepEqual(await rows(page, 'an-properties'), [['pro', '1']]);
    await shot(page, 'overview');

    // Realtime: the three visitors of the last 5 minutes, polled every 10 s while the page is visible.
    await until('realtime visitors', () => metric(page, 'realtime_visitors'), '3');
    let polls = 0;
    const count = (r) => { if (r.url().includes('/v1/analytics/realtime')) polls += 1; };
    page.on('request', count);
    await page.waitForTimeout(10_800);
    page.off('request', count);
    assert.ok(polls >= 1, `realtime polled ${polls} times in 10.8 s`);

    // Clicking a row filters every figure by it; the chip is in the address, so a reload keeps it.
    await page.click('#an-pages [data-filter-value="/pricing"]');
    await page.locator('#analytics-filters [data-filter="page"]').waitFor();
    assert.equal(param(page, 'page'), '/pricing');
    await until('filtered page views', () => metric(page, 'page_views'), '2');
    assert.equal(await metric(page, 'unique_visitors'), '2');
    await page.click('#analytics-filters [data-filter="page"]'); // the chip's button removes it
    await until('unfiltered again', () => metric(page, 'page_views'), '5');
    assert.equal(param(page, 'page'), null);
    assert.equal(await page.locator('#analytics-filters .chip').count(), 0);

    // Two filters combine (AND): mobile visitors on /docs.
    await page.click('#an-devices [data-filter-value="mobile"]');
    await until('mobile page views', () => metric(page, 'page_views'), '2');
    assert.equal(await metric(page, 'unique_visitors'), '1');
    await until('realtime narrowed by the filter', () => metric(page, 'realtime_visitors'), '1');
    await page.click('#an-pages [data-filter-value="/docs"]');
    await until('mobile on /docs', () => metric(page, 'page_views'), '1');
    assert.equal(await page.locator('#analytics-filters .chip').count(), 2);
    await page.reload();
    await page.locator('#analytics-filters [data-filter="device"]').waitFor();
    await page.locator('#analytics-filters [data-filter="page"]').waitFor();
    await until('filters kept across a reload', () => metric(page, 'page_views'), '1');
    await shot(page, 'filtered');
    await page.click('#clear-filters');
    await until('filters cleared', () => metric(page, 'page_views'), '5');

    // Comparison: the period before had nothing.
    await page.check('[data-compare]');
    await page.locator('[data-change="page_views"]').waitFor();
    assert.equal(param(page, 'compare'), 'previous');
    assert.equal(await page.getAttribute('[data-change="page_views"]', 'data-previous'), '0');
    assert.match(await text(page, '[data-change="page_views"]'), /new/);
    await page.uncheck('[data-compare]');
    await page.locator('[data-change="page_views"]').waitFor({ state: 'detached' });

    // Custom range: the last week by dates; then one over two years, which the API refuses.
    const day = (n) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
    await page.click('[data-period="custom"]');
    await page.fill('#range-from', day(6));
    await page.fill('#range-to', day(0));
    await page.click('#range-apply');
    await until('custom range in the address', () => [param(page, 'from'), param(page, 'to'), param(page, 'period')], [day(6), day(0), null]);
    await until('custom range figures', () => metric(page, 'page_views'), '5');
    assert.equal(await page.getAttribute('[data-period="custom"]', 'aria-pressed'), 'true');
    await page.fill('#range-from', day(1));
    await page.fill('#range-to', day(3));
    await page.click('#range-apply');
    assert.match(await text(page, '[data-err-for="to"]'), /before/, 'to before from is caught in the page');
    await page.fill('#range-from', '2020-01-01');
    await page.fill('#range-to', day(0));
    await page.click('#range-apply');
    await page.waitForFunction(() => ['from', 'to'].some((f) => document.querySelector(`#analytics-query [data-err-for="${f}"]`).textContent.trim()));
    await page.click('[data-period="7d"]');
    await until('back to 7 days', () => metric(page, 'page_views'), '5');

    // Goals: an event and a page, with their conversions out of the three visitors.
    await page.click('#analytics-tabs [data-tab="goals"]');
    await page.locator('#goal-form').waitFor();
    assert.equal(param(page, 'period'), '7d', 'the tabs keep the range');
    await page.click('#goal-form button[type="submit"]');
    assert.match(await text(page, '#goal-form [data-err-for="name"]'), /required/);
    await page.fill('#goal-name', 'Signed up');
    await page.fill('#goal-target', 'signup');
    await page.fill('#goal-currency', 'eur');
    await page.click('#goal-form button[type="submit"]');
    await page.locator('#goals-table tbody tr').waitFor();
    assert.equal(await text(page, '#goals-table tbody tr [data-revenue]'), '49.00 EUR');
    await page.fill('#goal-name', 'Read the docs');
    await page.check('#goal-kind-page');
    await page.fill('#goal-target', '/docs');
    await page.click('#goal-form button[type="submit"]');
    await until('two goals', () => page.locator('#goals-table tbody tr').count(), 2);
    const goals = await page.$$eval('#goals-table tbody tr', (trs) => trs.map((tr) => [
      tr.cells[0].textContent.trim(), tr.querySelector('[data-conversions]').textContent.trim(),
      tr.querySelector('[data-visitors]').textContent.trim(), tr.querySelector('[data-rate]').textContent.trim()]).sort());
    assert.deepEqual(goals, [['Read the docs', '1', '3', '33.3%'], ['Signed up', '1', '3', '33.3%']]);
    await shot(page, 'goals');
    await page.click('#goals-table tbody tr:has-text("Read the docs") [data-action="delete-goal"]');
    await page.click('#confirm-ok');
    await until('one goal left', () => page.locator('#goals-table tbody tr').count(), 1);

    // Funnels: / -> /pricing -> signup. Two visitors start, one goes on and signs up.
    await page.click('#analytics-tabs [data-tab="funnels"]');
    await page.locator('#funnel-form').waitFor();
    await page.fill('#funnel-name', 'Pricing to signup');
    const stepValues = page.locator('#funnel-step-rows .step-value');
    for (let i = 2; i < 8; i++) await page.click('#add-step');
    assert.equal(await stepValues.count(), 8);
    assert.ok(await page.locator('#add-step').isDisabled(), 'at most 8 steps');
    for (let i = 7; i >= 3; i--) await page.click(`#funnel-step-rows li:nth-child(${i + 1}) .step-remove`);
    assert.equal(await stepValues.count(), 3);
    await stepValues.nth(0).fill('/');
    await stepValues.nth(1).fill('/pricing');
    await page.selectOption('#funnel-step-rows li:nth-child(3) .step-kind', 'event');
    await stepValues.nth(2).fill('signup');
    await page.click('#funnel-form button[type="submit"]');
    await page.locator('#funnel-chart rect.funnel-bar').first().waitFor();
    assert.match(page.url(), /\/analytics\/funnels\/[0-9a-f-]{36}\?/);
    assert.equal(await page.locator('#funnel-chart rect.funnel-bar').count(), 3);
    const steps = await page.$$eval('#funnel-steps tbody tr', (trs) => trs.map((tr) => [
      tr.querySelector('[data-visitors]').textContent.trim(), tr.querySelector('[data-rate]').textContent.trim()]));
    assert.deepEqual(steps, [['2', '100.0%'], ['1', '50.0%'], ['1', '50.0%']]);
    assert.equal(await page.locator('#funnel-list li').count(), 1);
    await shot(page, 'funnel');
    await page.setViewportSize(PHONE);
    await page.waitForTimeout(400);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the funnel page scrolls sideways by ${overflow}px on a phone`);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.click('#funnel-list [data-action="delete-funnel"]');
    await page.click('#confirm-ok');
    await page.locator('#funnels-empty').waitFor();

    // Share links: create one, read it without a session, revoke it.
    await page.click('#analytics-tabs [data-tab="sharing"]');
    await page.locator('#share-create').waitFor();
    await page.click('#share-create');
    await page.locator('#share-list li').waitFor();
    const url = await page.inputValue('#share-list input');
    assert.match(url, /\/share\/[^/]+$/);
    const shared = await fetch(url);
    assert.equal(shared.status, 200, 'the shared page opens without a session');
    assert.equal(await page.locator('#share-list [data-action="copy-share-view"]').count(), 1, 'a copy with the 7 days on display');
    await shot(page, 'sharing');
    await page.setViewportSize(PHONE);
    const shareOverflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(shareOverflow <= 0, `the sharing tab scrolls sideways by ${shareOverflow}px on a phone`);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.click('#share-list [data-action="revoke-share"]');
    await page.click('#confirm-ok');
    await page.locator('#share-empty').waitFor();
    assert.notEqual((await fetch(url)).status, 200, 'a revoked link no longer opens');

    // The weekly report is opt-in, next to the other notification settings.
    await page.goto(`${API}/dashboard/account`);
    const weekly = page.locator(`#notify-${project.id}-weekly_report`);
    await weekly.waitFor();
    assert.equal(await weekly.isChecked(), false, 'off by default');
    await weekly.check();
    await until('weekly report saved', async () => (await api('GET', `/v1/projects/${project.id}/notifications`, { token, expect: 200 })).weekly_report, true);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('a viewer reads goals and funnels but gets no forms to change them, and no share links', { timeout: 120_000 }, async () => {
  const { token: ownerToken, project, slug } = await setup('viewer');
  await api('POST', '/v1/analytics/goals', { token: ownerToken, body: { project_id: project.id, name: 'Signed up', event: 'signup' }, expect: 201 });
  const funnel = await api('POST', '/v1/analytics/funnels', { token: ownerToken, expect: 201,
    body: { project_id: project.id, name: 'Docs', steps: [{ page: '/' }, { page: '/docs' }] } });
  const email = `viewer-${slug}@example.com`;
  const invite = await api('POST', `/v1/projects/${project.id}/invites`, { token: ownerToken, body: { email, role: 'viewer' }, expect: 201 });
  const token = await login(email, 'Vic Viewer');
  await api('POST', `/v1/invites/${invite.url.split('/invite/')[1]}/accept`, { token, expect: 200 });

  const { ctx, page, problems } = await signedInPage(token);
  try {
    await page.goto(`${API}/dashboard/p/${project.id}/analytics/goals`);
    await page.locator('#goals-table tbody tr').waitFor();
    assert.equal(await text(page, '#goals-table [data-conversions]'), '0');
    assert.ok(await page.locator('#goal-form').isHidden(), 'no goal form for a viewer');
    assert.ok(await page.locator('[data-action="delete-goal"]').isHidden(), 'no delete for a viewer');
    await page.goto(`${API}/dashboard/p/${project.id}/analytics/funnels/${funnel.id}`);
    await page.locator('#funnel-steps tbody tr').first().waitFor();
    assert.equal(await page.locator('#funnel-steps tbody tr').count(), 2);
    assert.ok(await page.locator('#funnel-form').isHidden(), 'no funnel form for a viewer');
    await page.click('#analytics-tabs [data-tab="sharing"]');
    await page.locator('#share-admins-only').waitFor();
    assert.equal(await page.locator('#share-create').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('segments: filters saved as a segment, picked for every read, and a share link locked to one', { timeout: 120_000 }, async () => {
  const { token, project, key } = await setup('segments');
  await send(key, CHROME, view('/'));
  await send(key, IPHONE, view('/', { screen_width: 390 }));
  await send(key, IPHONE, view('/docs', { screen_width: 390 }));
  const qs = `project_id=${project.id}&period=7d`;
  await until('events stored', async () => (await api('GET', `/v1/analytics/overview?${qs}`, { token, expect: 200 })).page_views, 3);

  const { ctx, page, problems } = await signedInPage(token);
  try {
    await page.goto(`${API}/dashboard/p/${project.id}/analytics?period=7d&device=mobile`);
    await until('mobile page views', () => metric(page, 'page_views'), '2');
    // The filter chip, saved under a name: the segment takes the chip's place and stays picked.
    await page.click('#segment-save');
    await page.fill('#segment-name', 'Phones');
    await page.click('#segment-create');
    await page.locator('#segment-delete').waitFor();
    const segment = param(page, 'segment');
    assert.ok(segment, 'the segment is in the address');
    assert.equal(param(page, 'device'), null);
    assert.equal(await page.locator('#analytics-filters .chip').count(), 0);
    assert.equal(await page.locator('#segment-picker option:checked').textContent(), 'Phones');
    await until('segment page views', () => metric(page, 'page_views'), '2');
    await shot(page, 'segment');
    // All visitors again, then the segment from the picker.
    await page.selectOption('#segment-picker', '');
    await until('all page views', () => metric(page, 'page_views'), '3');
    await page.selectOption('#segment-picker', segment);
    await until('the segment again', () => metric(page, 'page_views'), '2');

    // A link that shows the segment only.
    await page.goto(`${API}/dashboard/p/${project.id}/analytics/sharing`);
    await page.locator('#share-segment option', { hasText: 'Phones' }).waitFor({ state: 'attached' });
    await page.selectOption('#share-segment', segment);
    await page.click('#share-create');
    const item = page.locator(`#share-list [data-share-segment="${segment}"]`);
    await item.waitFor();
    assert.match(await item.textContent(), /shows the segment Phones only/);
    const url = await page.locator('#share-list input').first().inputValue();
    const shared = await ctx.newPage();
    await shared.goto(`${url}?period=7d`);
    assert.equal((await shared.locator('[data-figure="page_views"]').textContent()).trim(), '2');
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('sources by goal: the referrers and UTM tables add conversions, rate and revenue', { timeout: 120_000 }, async () => {
  const { token, project, key } = await setup('by-goal');
  await send(key, CHROME, view('/pricing?utm_source=newsletter', { referrer: 'https://news.example/a' }));
  await send(key, CHROME, { name: 'purchase', url: 'https://acme.example/pricing', revenue: { amount: '49.00', currency: 'EUR' } });
  await send(key, IPHONE, view('/', { screen_width: 390, referrer: 'https://news.example/b' }));
  const qs = `project_id=${project.id}&period=7d`;
  await until('events stored', async () => (await api('GET', `/v1/analytics/overview?${qs}`, { token, expect: 200 })).page_views, 2);
  const goal = await api('POST', '/v1/analytics/goals', { token, expect: 201, body: { project_id: project.id, name: 'Purchase', event: 'purchase', currency: 'EUR' } });

  const { ctx, page, problems } = await signedInPage(token);
  const cells = (id) => page.$$eval(`#${id} tbody tr`, (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent.trim())));
  try {
    await page.goto(`${API}/dashboard/p/${project.id}/analytics?period=7d`);
    await page.locator('#an-referrers').waitFor();
    assert.equal(await page.locator('#an-referrers [data-col="conversions"]').count(), 0, 'no goal, no conversions');
    await page.locator('#goal-picker option', { hasText: 'Purchase (EUR)' }).waitFor({ state: 'attached' });
    await page.selectOption('#goal-picker', goal.id);
    await until('referrers by goal', () => cells('an-referrers'), [['news.example', '2', '2', '1', '50.0%', '49.00 EUR']]);
    assert.equal(param(page, 'goal'), goal.id, 'the goal is in the address');
    assert.deepEqual(await cells('an-utm-sources'), [['newsletter', '1', '1', '1', '100.0%', '49.00 EUR']]);
    await shot(page, 'sources-by-goal');
    await page.selectOption('#goal-picker', '');
    await until('no goal again', () => page.locator('#an-referrers [data-col="conversions"]').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('imports: a Plausible CSV uploaded, applied with progress, counted, refused when it is no export, deleted', { timeout: 120_000 }, async () => {
  const { token, project } = await setup('imports');
  const day = (n) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
  const csv = `"date","visitors","pageviews","bounces","visits","visit_duration"\n"${day(3)}",7,12,2,8,400\n"${day(2)}",5,9,1,6,300\n`;
  const { ctx, page, problems } = await signedInPage(token);
  try {
    await page.goto(`${API}/dashboard/p/${project.id}/analytics/imports`);
    await page.locator('#imports-empty').waitFor();
    // Not an export: the form says why, nothing is listed.
    await page.setInputFiles('#import-file', { name: 'notes.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b\n1,2\n') });
    await page.click('#import-form button[type="submit"]');
    await until('refused', () => text(page, '#import-form [data-err-for="file"]').then((t) => /Plausible/.test(t)), true);
    await page.setInputFiles('#import-file', { name: `imported_visitors_${day(3).replace(/-/g, '')}_${day(2).replace(/-/g, '')}.csv`, mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.click('#import-form button[type="submit"]');
    await until('applied', () => page.locator('#imports-table tr[data-status="done"]').count(), 1);
    assert.match(await text(page, '#imports-table tr[data-status="done"]'), new RegExp(`${day(3)} \u2013 ${day(2)}`));
    // A file with a bad row fails whole, its reason in the list.
    await page.setInputFiles('#import-file', { name: 'imported_visitors.csv', mimeType: 'text/csv', buffer: Buffer.from(`"date","visitors","pageviews","bounces","visits","visit_duration"\n"someday",1,1,0,1,0\n`) });
    await page.click('#import-form button[type="submit"]');
    await until('failed', () => page.locator('#imports-table tr[data-status="failed"]').count(), 1);
    assert.match(await text(page, '#imports-table tr[data-status="failed"] [data-import-status]'), /line 2/);
    await shot(page, 'imports');
    // The imported days are in the overview.
    await page.goto(`${API}/dashboard/p/${project.id}/analytics?period=7d`);
    await until('imported page views', () => metric(page, 'page_views'), '21');
    await page.goto(`${API}/dashboard/p/${project.id}/analytics/imports`);
    await page.click('#imports-table tr[data-status="done"] [data-action="delete-import"]');
    await page.click('#confirm-ok');
    await until('deleted', () => page.locator('#imports-table tr[data-status="done"]').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('journeys: the pages before and after a page, and a click walks on', { timeout: 120_000 }, async () => {
  const { token, project, key } = await setup('journeys');
  for (const p of ['/', '/pricing', '/docs']) await send(key, CHROME, view(p));
  for (const p of ['/', '/pricing']) await send(key, IPHONE, view(p, { screen_width: 390 }));
  const qs = `project_id=${project.id}&period=7d`;
  await until('events stored', async () => (await api('GET', `/v1/analytics/overview?${qs}`, { token, expect: 200 })).page_views, 5);

  const { ctx, page, problems } = await signedInPage(token);
  const table = (id) => page.$$eval(`#${id} tbody tr`, (trs) => trs.map((tr) => [tr.cells[0].textContent.trim(), tr.cells[1].textContent.trim()]));
  try {
    await page.goto(`${API}/dashboard/p/${project.id}/analytics/journeys?period=7d`);
    await page.locator('#journeys-next').waitFor();
    await page.fill('#journey-page', '/pricing');
    await page.click('#journey-form button[type="submit"]');
    await until('after /pricing', () => table('journeys-next'), [['(exit)', '1'], ['/docs', '1']]);
    assert.deepEqual(await table('journeys-previous'), [['/', '2']]);
    await shot(page, 'journeys');
    // A page in a row opens its own journeys.
    await page.click('#journeys-previous [data-journey="/"]');
    await until('after /', () => table('journeys-next'), [['/pricing', '2']]);
    assert.deepEqual(await table('journeys-previous'), [['(entrance)', '2']]);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('alerts: set in the project settings, listed with their last check, deleted', { timeout: 60_000 }, async () => {
  const { token, project } = await setup('alerts');
  await api('POST', '/v1/analytics/goals', { token, body: { project_id: project.id, name: 'Signed up', event: 'signup' }, expect: 201 });
  const { ctx, page, problems } = await signedInPage(token);
  try {
    await page.goto(`${API}/dashboard/p/${project.id}/settings`);
    await page.locator('#alerts-empty').waitFor();
    await page.fill('#alert-threshold', '250');
    await page.click('#alert-form button[type="submit"]');
    await page.locator('#alerts-list li').waitFor();
    await page.selectOption('#alert-kind', 'goal');
    await page.selectOption('#alert-goal', { label: 'Signed up' });
    await page.fill('#alert-threshold', '3');
    await page.click('#alert-form button[type="submit"]');
    await until('two alerts', () => page.locator('#alerts-list li').count(), 2);
    const items = await page.locator('#alerts-list li').allTextContents();
    // The worker may check the new alert before the page lists it: either state is right.
    assert.match(items[0], /Visitors in the last hour above 250 \((not checked yet|last hour: 0)\)/);
    assert.match(items[1], /Conversions of a goal in the last hour above 3 \(Signed up\)/);
    const listed = await api('GET', `/v1/analytics/alerts?project_id=${project.id}`, { token, expect: 200 });
    assert.deepEqual(listed.data.map((a) => [a.kind, a.threshold, a.firing]), [['traffic_spike', 250, false], ['goal', 3, false]]);
    await page.locator('#alerts-list li').first().screenshot({ path: path.join(SHOTS, 'analytics-alerts.png') });
    await page.click('#alerts-list li:first-child [data-action="delete-alert"]');
    await until('one alert left', () => page.locator('#alerts-list li').count(), 1);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});
