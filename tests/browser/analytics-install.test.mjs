// Headless Chromium tests of installing analytics from the dashboard, against a running shipmate-api and
// shipmate-worker: the install snippet carries data-allow-localhost when the service runs on a loopback address
// (and not otherwise), and an empty project's analytics show the snippet and wait for the first page view,
// turning to "seen" when the snippet, pasted into a page on 127.0.0.1, sends one. Run through
// tests/browser/run.sh (BROWSER_TESTS=analytics-install for this file alone).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';

import { API, SHOTS, useBrowser, setup } from './support.mjs';

const browser = useBrowser();
// Headless Chromium says "HeadlessChrome" in its user agent, and the service drops headless browsers as bots.
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
// A name for the API's own address that is not a loopback one (Chromium resolves it to 127.0.0.1).
const PUBLIC_HOST = 'shipmate.test';

async function signedInPage(b, token, base = API) {
  const ctx = await b.newContext({ viewport: { width: 1280, height: 900 } });
  ctx.setDefaultTimeout(15_000);
  await ctx.addCookies([{ name: 'shipmate_session', value: token, url: base }]);
  const page = await ctx.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text()); });
  return { ctx, page, problems };
}

const text = (page, sel) => page.locator(sel).first().textContent().then((t) => (t || '').trim(), () => '');

/** Serves `html` at every path on 127.0.0.1:0, as a developer's local site. */
async function localSite(html) {
  const server = http.createServer((req, res) => {
    res.writeHead(req.url === '/favicon.ico' ? 404 : 200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(req.url === '/favicon.ico' ? '' : html);
  });
  await new Promise((resolve, reject) => { server.once('error', reject); server.listen(0, '127.0.0.1', resolve); });
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}

test('the install snippet carries data-allow-localhost on a loopback address, and only there', { timeout: 60_000 }, async () => {
  const { token, project } = await setup('snippet');
  const settings = (base) => `${base}/dashboard/p/${project.id}/settings`;

  const local = await signedInPage(browser(), token);
  try {
    await local.page.goto(settings(API));
    await local.page.locator('#script-snippet').waitFor();
    const tag = await text(local.page, '#script-snippet');
    assert.equal(tag, `<script defer data-project="${project.publishable_key}" data-api="${API}" data-allow-localhost src="${API}/sdk/sm.js"></script>`);
    assert.match(await text(local.page, '#allow-localhost-hint'), /data-allow-localhost/);
    assert.deepEqual(local.problems, []);
  } finally {
    await local.ctx.close();
  }

  // The same service under a public name: a plain tag.
  const port = new URL(API).port;
  const named = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', `--host-resolver-rules=MAP ${PUBLIC_HOST} 127.0.0.1`],
  });
  try {
    const base = `http://${PUBLIC_HOST}:${port}`;
    const { page, problems } = await signedInPage(named, token, base);
    await page.goto(settings(base));
    await page.locator('#script-snippet').waitFor();
    const tag = await text(page, '#script-snippet');
    assert.equal(tag, `<script defer data-project="${project.publishable_key}" data-api="${base}" src="${base}/sdk/sm.js"></script>`);
    assert.equal(await page.locator('#allow-localhost-hint').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await named.close();
  }
});

test('an empty project\'s analytics show the snippet and wait for the first page view', { timeout: 120_000 }, async () => {
  const { token, project } = await setup('first');
  const { ctx, page, problems } = await signedInPage(browser(), token);
  let realtimeReads = 0;
  page.on('request', (r) => { if (r.url().includes('/v1/analytics/realtime')) realtimeReads += 1; });
  const waiting = () => page.waitForFunction(() => document.querySelector('#first-event-status')?.textContent === 'Waiting for your first page view\u2026');
  let site = null;
  try {
    await page.goto(`${API}/dashboard/p/${project.id}/analytics`);
    await waiting();
    const tag = await text(page, '#first-event-snippet');
    assert.ok(tag.includes(`data-project="${project.publishable_key}"`) && tag.includes('data-allow-localhost'), tag);
    assert.ok(await page.locator('#analytics-tables').isHidden(), 'no wall of empty tables while waiting');
    await page.screenshot({ path: path.join(SHOTS, 'analytics-install-waiting.png'), fullPage: true });

    // The check polls every few seconds, and stops when the screen changes.
    const before = realtimeReads;
    await page.waitForTimeout(7_000);
    assert.ok(realtimeReads - before >= 2, `the realtime read polled ${realtimeReads - before} times in 7 s`);
    await page.click('#sidenav a[href$="/feedback"]');
    await page.getByRole('heading', { level: 1, name: 'Feedback' }).waitFor();
    const left = realtimeReads;
    await page.waitForTimeout(7_000);
    assert.equal(realtimeReads, left, 'no realtime reads after leaving analytics');
    await page.goBack();
    await waiting();

    // The snippet as shown, pasted into a developer's page on 127.0.0.1: its page view is counted.
    site = await localSite(`<!doctype html><html><head><meta charset="utf-8"><title>Local site</title>${tag}</head><body><h1>Hello</h1></body></html>`);
    const visitor = await browser().newContext({ userAgent: USER_AGENT });
    const visit = await visitor.newPage();
    const accepted = visit.waitForResponse((r) => r.request().method() === 'POST' && r.url() === `${API}/v1/analytics/events`);
    await visit.goto(`${site.origin}/welcome`);
    assert.equal((await accepted).status(), 202, 'the page view was accepted');
    await visitor.close();

    await page.waitForFunction(() => document.querySelector('#first-event-status')?.textContent === 'First page view seen!', null, { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelector('[data-metric="page_views"]')?.textContent.trim() === '1', null, { timeout: 30_000 });
    assert.ok(await page.locator('#analytics-tables').isVisible(), 'the tables show once the first event is seen');
    assert.equal(await text(page, '#an-pages tbody tr .bar-label'), '/welcome');
    await page.screenshot({ path: path.join(SHOTS, 'analytics-install-seen.png'), fullPage: true });
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
    if (site) await site.close();
  }
});
