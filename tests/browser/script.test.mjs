// Headless Chromium tests of the browser analytics script (/sdk/sm.js) against a running shipmate-api with dev
// login on and a shipmate-worker beside it (analytics are aggregated by the worker). Run through
// tests/browser/run.sh, or set SHIPMATE_API_URL and run `node --test`.
//
// The test page is served by a small server of this file on 127.0.0.2 (a non-localhost origin, so the script's
// localhost guard stays out of the way and the API is called cross-origin, preflight and all).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { readFile } from 'node:fs/promises';

import { API, REPO, SHOTS, useBrowser, api, setup } from './support.mjs';

// Headless Chromium says "HeadlessChrome" in its user agent, and the service drops headless browsers as bots.
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const EVENTS_URL = `${API}/v1/analytics/events`;

const browser = useBrowser();

/** The customer's page: the queue stub, an event queued before the script, then the script tag. */
function landingPage(key, { allowLocalhost = false } = {}) {
  const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme shop</title>
<script>
window.sm = window.sm || function(){(window.sm.q = window.sm.q || []).push(arguments)};
sm('queued_event', {a: 1});
</script>
<script defer data-project="${esc(key)}" data-api="${esc(API)}"${allowLocalhost ? ' data-allow-localhost' : ''} src="${esc(API)}/sdk/sm.js"></script>
</head>
<body><h1>Acme shop</h1><p>A single-page app.</p></body>
</html>`;
}

/** Serves the landing page at every path (a single-page app) on `host`:0. */
async function startSite(key, { host = '127.0.0.2', allowLocalhost = false } = {}) {
  const html = landingPage(key, { allowLocalhost });
  const server = http.createServer((req, res) => {
    if (req.url === '/favicon.ico') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(html);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  return {
    origin: `http://${host}:${server.address().port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}

/** The script's console.info lines: the one saying why a page is skipped. */
const hintsOf = (page) => {
  const hints = [];
  page.on('console', (m) => { if (m.text().startsWith('Shipmate:')) hints.push(`${m.type()}: ${m.text()}`); });
  return hints;
};

/**
 * Runs `fn(page, posts)` in a fresh context; `posts` collects every analytics POST the page makes, with its
 * response status once known. Fails on page errors.
 */
async function withPage(fn, contextOptions = {}, initScript) {
  const ctx = await browser().newContext({ userAgent: USER_AGENT, ...contextOptions });
  ctx.setDefaultTimeout(15_000);
  if (initScript) await ctx.addInitScript(initScript);
  const page = await ctx.newPage();
  const problems = [];
  const posts = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (req) => {
    if (req.method() === 'POST' && req.url() === EVENTS_URL) {
      const entry = { body: req.postDataJSON(), headers: req.headers(), status: null };
      posts.push(entry);
      req.response().then((res) => { entry.status = res ? res.status() : -1; }, () => { entry.status = -1; });
    }
  });
  page.on('requestfailed', (req) => {
    if (req.url().startsWith(API)) problems.push(`request failed: ${req.method()} ${req.url()}: ${req.failure()?.errorText}`);
  });
  try {
    await fn(page, posts);
    assert.deepEqual(problems, [], 'no script errors or failed requests');
  } finally {
    await ctx.close();
  }
}

/** The navigation of both tests: land, two SPA navigations, a same-URL replaceState, back, a direct event. */
async function browse(page, origin) {
  const res = await page.goto(`${origin}/landing?utm_source=newsletter&utm_medium=email`);
  assert.equal(res.status(), 200);
  await page.waitForFunction(() => typeof window.sm === 'function' && !Array.isArray(window.sm.q));
  await page.evaluate(() => history.pushState({}, '', '/pricing'));
  await page.evaluate(() => history.pushState({}, '', '/docs'));
  await page.evaluate(() => history.replaceState({}, '', location.href)); // same URL: no second page view
  await page.evaluate(() => history.back()); // popstate: /pricing
  await page.waitForFunction(() => location.pathname === '/pricing');
  await page.evaluate(() => window.sm('direct_event', { b: 2 }));
}

async function waitFor(check, what, ms) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${ms / 1000} s: ${last?.message ?? last}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const reads = (s, which) => api('GET', `/v1/analytics/${which}?project_id=${s.project.id}`, { token: s.token, expect: 200 });
const countsOf = (rows, label, count) => Object.fromEntries(rows.map((r) => [r[label], r[count]]));

function assertSorted(rows, count, what) {
  for (let i = 1; i < rows.length; i++) {
    assert.ok(rows[i - 1][count] >= rows[i][count], `${what} sorted by ${count}, largest first: ${JSON.stringify(rows)}`);
  }
}

test('the API serves the script as published in sdk/script/sm.js', { timeout: 30_000 }, async () => {
  const res = await fetch(`${API}/sdk/sm.js`);
  assert.equal(res.status, 200, 'GET /sdk/sm.js');
  assert.match(res.headers.get('content-type') || '', /javascript/);
  assert.ok(res.headers.get('etag'), 'an ETag');
  assert.match(res.headers.get('cache-control') || '', /max-age=\d+/);
  assert.equal(await res.text(), await readFile(path.join(REPO, 'sdk', 'script', 'sm.js'), 'utf8'));
});

test('script sends page views, UTM and queued and direct events', { timeout: 90_000 }, async () => {
  const s = await setup('script');
  const site = await startSite(s.key);
  try {
    await withPage(async (page, posts) => {
      const hints = hintsOf(page);
      await browse(page, site.origin);
      // 4 page views + the queued event + the direct one, each answered 202.
      await waitFor(() => {
        assert.equal(posts.length, 6, `analytics POSTs so far: ${JSON.stringify(posts.map((p) => p.body))}`);
        assert.ok(posts.every((p) => p.status === 202), `statuses ${posts.map((p) => p.status)}`);
      }, 'six accepted analytics POSTs', 10_000);

      const bodies = posts.map((p) => p.body);
      assert.deepEqual(bodies.map((b) => b.name), ['page_view', 'queued_event', 'page_view', 'page_view', 'page_view', 'direct_event']);
      assert.deepEqual(
        bodies.filter((b) => b.name === 'page_view').map((b) => new URL(b.url).pathname),
        ['/landing', '/pricing', '/docs', '/pricing'],
      );
      const [landing, queued] = bodies;
      assert.equal(landing.url, `${site.origin}/landing?utm_source=newsletter&utm_medium=email`);
      assert.equal(landing.utm_source, 'newsletter');
      assert.equal(landing.utm_medium, 'email');
      assert.equal(landing.utm_campaign, undefined);
      assert.equal(typeof landing.screen_width, 'number');
      assert.ok(landing.screen_width > 0);
      assert.deepEqual(queued.properties, { a: 1 });
      assert.deepEqual(bodies[5].properties, { b: 2 });
      assert.equal(bodies[5].utm_source, undefined, 'no UTM once the URL has none');
      assert.deepEqual(hints, [], 'a counted page says nothing');
      for (const p of posts) {
        assert.equal(p.headers['x-project-key'], s.key);
        assert.match(p.headers['content-type'], /^application\/json/);
      }
    });

    await waitFor(async () => {
      const pages = await reads(s, 'pages');
      assert.equal(pages.period, '30d');
      assert.deepEqual(countsOf(pages.data, 'page', 'views'), { '/landing': 1, '/pricing': 2, '/docs': 1 });
      assert.equal(pages.data[0].page, '/pricing');
      assertSorted(pages.data, 'views', 'pages');
      assert.ok(pages.data.every((r) => r.visitors === 1), 'one visitor');

      const events = await reads(s, 'events');
      assert.deepEqual(countsOf(events.data, 'name', 'count'), { page_view: 4, queued_event: 1, direct_event: 1 });
      assert.equal(events.data[0].name, 'page_view');
      assertSorted(events.data, 'count', 'events');

      const utm = await reads(s, 'utm');
      assert.deepEqual(utm.sources.map((r) => [r.utm_source, r.views, r.visitors]), [['newsletter', 1, 1]]);
      assert.deepEqual(utm.mediums.map((r) => [r.utm_medium, r.views, r.visitors]), [['email', 1, 1]]);
      assert.deepEqual(utm.campaigns, []);
    }, 'the analytics reads', 20_000);
  } finally {
    await site.close();
  }
});

test('script sends nothing at all under Do Not Track, and says why in the console', { timeout: 60_000 }, async () => {
  const s = await setup('script-dnt');
  const site = await startSite(s.key);
  try {
    await withPage(async (page, posts) => {
      const hints = hintsOf(page);
      await browse(page, site.origin);
      await page.waitForTimeout(3_000);
      assert.equal(posts.length, 0, 'no analytics requests');
      // One line, however many navigations and events: why, and what would change it.
      assert.deepEqual(hints, ['info: Shipmate: not counting page views while Do Not Track is on; turn it off in this browser to count them']);
    }, { extraHTTPHeaders: { DNT: '1' } }, () => {
      Object.defineProperty(navigator, 'doNotTrack', { get: () => '1' });
    });
    const events = await reads(s, 'events');
    assert.deepEqual(events.data, []);
    const pages = await reads(s, 'pages');
    assert.deepEqual(pages.data, []);
  } finally {
    await site.close();
  }
});

test('script ignores localhost unless the tag has data-allow-localhost, and says so in the console', { timeout: 60_000 }, async () => {
  const s = await setup('script-local');
  const quiet = await startSite(s.key, { host: '127.0.0.1' });
  const loud = await startSite(s.key, { host: '127.0.0.1', allowLocalhost: true });
  try {
    await withPage(async (page, posts) => {
      const hints = hintsOf(page);
      await page.goto(`${quiet.origin}/`);
      await page.waitForFunction(() => typeof window.sm === 'function' && !Array.isArray(window.sm.q));
      await page.evaluate(() => window.sm('ignored'));
      await page.evaluate(() => history.pushState({}, '', '/next'));
      await page.waitForTimeout(1_000);
      assert.equal(posts.length, 0, 'nothing sent from 127.0.0.1');
      assert.deepEqual(hints, ['info: Shipmate: not counting page views on 127.0.0.1; add data-allow-localhost to the script tag to count them']);
    });
    await withPage(async (page, posts) => {
      const hints = hintsOf(page);
      await page.goto(`${loud.origin}/`);
      await waitFor(() => {
        assert.equal(posts.length, 2);
        assert.ok(posts.every((p) => p.status === 202));
      }, 'two accepted POSTs', 10_000);
      assert.deepEqual(posts.map((p) => p.body.name), ['page_view', 'queued_event']);
      assert.deepEqual(hints, [], 'a counted page says nothing');
    });
  } finally {
    await quiet.close();
    await loud.close();
  }
});

/** A long article with an outbound link, a download, an internal link, and a missing page marked for sm.plus.js. */
async function startPlusSite(key) {
  const head = (extra) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme docs</title>${extra}
<script defer data-project="${key}" data-api="${API}" data-track="outbound downloads 404 engagement" src="${API}/sdk/sm.plus.js"></script></head>`;
  // A router's habit: links are followed by the page itself, so the test stays on it (the script listens first).
  const stay = '<script>document.addEventListener("click", (e) => { if (e.target.closest("a")) e.preventDefault(); });</script>';
  const article = `${head('')}<body><h1>Guide</h1>${stay}
<p><a id="out" href="https://elsewhere.example/partners?x=1">Partners</a> <a id="dl" href="/files/report.pdf">Report</a>
<a id="in" href="/pricing">Pricing</a> <a id="mail" href="mailto:hi@acme.example">Mail</a></p>
<div style="height: 4000px">Long text</div><p id="end">The end</p></body></html>`;
  const missing = `${head('<meta name="shipmate:404">')}<body><h1>Not found</h1></body></html>`;
  const server = http.createServer((req, res) => {
    const notFound = req.url.startsWith('/missing');
    res.writeHead(notFound ? 404 : 200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(notFound ? missing : article);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.2', resolve);
  });
  return { origin: `http://127.0.0.2:${server.address().port}`, close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }) };
}

test('sm.plus.js tracks outbound links, downloads, 404 pages and engagement, and the pages read shows it', { timeout: 90_000 }, async () => {
  const s = await setup('script-plus');
  const site = await startPlusSite(s.key);
  try {
    await withPage(async (page, posts) => {
      await page.goto(`${site.origin}/guide`);
      await page.waitForFunction(() => typeof window.sm === 'function' && window.sm.v === 1);
      for (const id of ['out', 'dl', 'in', 'mail']) await page.click(`#${id}`);
      // Half way down, read for a while, then leave through the app's router: the guide's engagement goes out.
      await page.evaluate(() => window.scrollTo(0, (document.documentElement.scrollHeight - window.innerHeight) / 2));
      await page.waitForFunction(() => window.scrollY > 0);
      await page.waitForTimeout(1_200); // engaged time to measure
      await page.evaluate(() => history.pushState({}, '', '/next'));
      // Hidden (a tab switch): the next page's engagement, once only.
      await page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
        document.dispatchEvent(new Event('visibilitychange'));
      });
      // Everything answered before leaving (an unload would abort what is in flight from the page's view).
      await waitFor(() => {
        assert.equal(posts.length, 6);
        assert.ok(posts.every((p) => p.status === 202), `statuses ${posts.map((p) => p.status)}`);
      }, 'six accepted POSTs', 10_000);
      await page.goto(`${site.origin}/missing/page`);
      await waitFor(() => {
        assert.deepEqual(posts.map((p) => p.body.name), ['page_view', 'Outbound Link: Click', 'File Download', 'page_view', 'engagement', 'engagement', 'page_view', '404']);
        assert.ok(posts.every((p) => p.status === 202), `statuses ${posts.map((p) => p.status)}`);
      }, 'the accepted analytics POSTs', 10_000);
      const [, out, dl, , guide, next, , missing] = posts.map((p) => p.body);
      assert.deepEqual(out.properties, { url: 'https://elsewhere.example/partners?x=1' });
      assert.deepEqual(dl.properties, { url: `${site.origin}/files/report.pdf` });
      assert.equal(guide.url, `${site.origin}/guide`);
      assert.ok(guide.properties.scroll_depth >= 50 && guide.properties.scroll_depth < 100, JSON.stringify(guide));
      assert.ok(guide.properties.engaged_ms >= 1_000 && guide.properties.engaged_ms < 30_000, JSON.stringify(guide));
      assert.equal(next.url, `${site.origin}/next`);
      assert.deepEqual(missing.properties, { path: '/missing/page' });
    });
    await waitFor(async () => {
      const pages = await reads(s, 'pages');
      const guide = pages.data.find((r) => r.page === '/guide');
      assert.ok(guide && guide.scroll_depth >= 50 && guide.time_on_page >= 1, JSON.stringify(pages));
      const events = await reads(s, 'events');
      // The third engagement is the 404 page's, sent as the browser closed it.
      assert.deepEqual(countsOf(events.data, 'name', 'count'), { page_view: 3, engagement: 3, 'Outbound Link: Click': 1, 'File Download': 1, 404: 1 });
    }, 'the analytics reads', 20_000);
    // The dashboard's pages table shows the medians.
    const ctx = await browser().newContext({ viewport: { width: 1280, height: 900 } });
    try {
      await ctx.addCookies([{ name: 'shipmate_session', value: s.token, url: API }]);
      const page = await ctx.newPage();
      await page.goto(`${API}/dashboard/p/${s.project.id}/analytics`);
      const row = page.locator('#an-pages tr', { hasText: '/guide' });
      await row.locator('td[data-col]').first().waitFor();
      const cells = await row.locator('td[data-col]').allTextContents();
      assert.equal(cells.length, 2, 'scroll depth and time on page');
      assert.match(cells[0], /^\d+%$/);
      assert.match(cells[1], /^\d+s$/);
      assert.deepEqual(await page.locator('#an-pages thead th').allTextContents(), ['Page', 'Views', 'Visitors', 'Scroll', 'Time']);
      await page.locator('#an-pages').screenshot({ path: path.join(SHOTS, 'analytics-engagement.png') });
    } finally {
      await ctx.close();
    }
  } finally {
    await site.close();
  }
});
