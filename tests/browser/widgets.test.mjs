// Headless Chromium tests of the embeddable widgets (/sdk/widgets.js) against a running shipmate-api with dev
// login on and a shipmate-worker beside it (it embeds entries for the similar-entries hint). Run through
// tests/browser/run.sh, or set SHIPMATE_API_URL and run `node --test`.
//
// The customer's page is served by a small server of this file on 127.0.0.2, another origin than the API's, so
// every widget call is cross-origin, preflights and all. Screenshots go to target/screenshots/widgets-*.png; with
// SHIPMATE_UPDATE_DOCS=1 they are also copied to docs/ (where docs/widgets.md shows them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { createHmac } from 'node:crypto';
import { readFile, copyFile } from 'node:fs/promises';

import { API, REPO, SHOTS, useBrowser, api, setup } from './support.mjs';

const LIMIT = 8192;
const browser = useBrowser();

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

function hostPage(publishable) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Acme app</title>
<style>
  :root { --shipmate-accent: #0f766e; --shipmate-font: Georgia, serif; }
  body { font-family: system-ui, sans-serif; margin: 0; padding: 24px; background: #f8fafc; }
  section { min-height: 520px; padding: 16px; }
  #reviews { min-height: 0; }
</style>
<script defer data-project="${esc(publishable)}" data-api="${esc(API)}" src="${esc(API)}/sdk/widgets.js"></script>
</head>
<body>
<h1>Acme app</h1>
<section id="fb"><div data-shipmate="feedback"></div></section>
<section id="news"><div data-shipmate="changelog"></div></section>
<section id="reviews"><div data-shipmate="testimonials"></div></section>
</body>
</html>`;
}

async function startSite(html) {
  const server = http.createServer((req, res) => {
    if (req.url === '/favicon.ico') return res.writeHead(204).end();
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(html);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.2', resolve);
  });
  return {
    origin: `http://127.0.0.2:${server.address().port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}

/** An identify JWT (HS256, keyed by the secret string's UTF-8 bytes), as the customer's backend signs it. */
function signJwt(secret, claims) {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${head}.${createHmac('sha256', Buffer.from(secret, 'utf8')).update(head).digest('base64url')}`;
}

async function waitFor(check, what, ms = 30_000) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${ms / 1000} s: ${last?.message ?? last}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function shot(page, selector, name) {
  const file = path.join(SHOTS, `widgets-${name}.png`);
  await page.locator(selector).screenshot({ path: file });
  if (process.env.SHIPMATE_UPDATE_DOCS === '1') await copyFile(file, path.join(REPO, 'docs', `widgets-${name}.png`));
}

test('the widgets script is at most 8 KB gzipped', async () => {
  const src = await readFile(path.join(REPO, 'sdk', 'script', 'widgets.js'));
  const size = zlib.gzipSync(src).length;
  console.log(`widgets.js: ${src.length} bytes, ${size} bytes gzipped (limit ${LIMIT})`);
  assert.ok(size <= LIMIT, `widgets.js is ${size} bytes gzipped, over ${LIMIT}`);
});

test('the API serves the widgets as published, cached, to any origin', async () => {
  const res = await fetch(`${API}/sdk/widgets.js`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /^text\/javascript/);
  assert.match(res.headers.get('cache-control'), /max-age=86400/);
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  assert.equal(await res.text(), await readFile(path.join(REPO, 'sdk', 'script', 'widgets.js'), 'utf8'));
  const again = await fetch(`${API}/sdk/widgets.js`, { headers: { 'If-None-Match': res.headers.get('etag') } });
  assert.equal(again.status, 304);
});

test('preflights of the widgets\' calls pass from any origin', async () => {
  for (const [method, p] of [['GET', '/v1/project'], ['POST', '/v1/auth/identify'], ['POST', '/v1/feedback/by-project/x'], ['POST', '/v1/feedback/x/upvote']]) {
    const res = await fetch(API + p, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://customer.example',
        'Access-Control-Request-Method': method,
        'Access-Control-Request-Headers': 'authorization,content-type,x-project-key',
      },
    });
    assert.equal(res.status, 200, `preflight of ${method} ${p}`);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    const allowed = res.headers.get('access-control-allow-headers').toLowerCase();
    for (const h of ['authorization', 'content-type', 'x-project-key']) assert.ok(allowed.includes(h), `${h} in ${allowed}`);
  }
});

test('three widgets in a page of another origin: feedback with the hint, identify and vote, the changelog badge, testimonials with JSON-LD', { timeout: 120_000 }, async () => {
  const { token, project, key: secretKey, slug } = await setup('widgets');
  const publishable = project.publishable_key;
  assert.match(publishable, /^pk_/);
  const { identify_secret: identifySecret } = await api('POST', `/v1/projects/${project.id}/identify-secret/rotate`, { token, expect: 200 });

  // An existing feature request the hint should find, once the worker embedded it.
  const existing = await api('POST', '/v1/feedback', { key: secretKey, body: { title: 'Dark mode for the dashboard', type: 'feature' }, expect: 201 });
  await waitFor(async () => (await api('GET', `/v1/feedback/by-project/${slug}/similar?q=${encodeURIComponent('dark theme')}`, { expect: 200 }))
    .data.some((e) => e.id === existing.id), 'the entry embedded (is shipmate-worker running?)');

  const changelog = `/v1/changelog/dashboard/${project.id}`;
  for (const n of [1, 2]) {
    await api('POST', changelog, { token, body: { title: `Release ${n}`, content: `**Faster** exports, ${n}.`, type: 'improvement', published: true }, expect: 201 });
  }
  const ratings = [5, 4, 4];
  for (const [i, rating] of ratings.entries()) {
    const t = await api('POST', '/v1/testimonials', { key: secretKey, body: { author_name: `Customer ${i}`, author_email: `c${i}@example.com`, author_title: 'CTO', content: `Great product, ${i}.`, rating }, expect: 201 });
    await api('PATCH', `/v1/testimonials/${t.id}?project_id=${project.id}`, { token, body: { status: 'approved' }, expect: 200 });
  }
  // Pending: not public, not in the rating.
  await api('POST', '/v1/testimonials', { key: secretKey, body: { author_name: 'Grumpy', author_email: 'g@example.com', content: 'Meh.', rating: 1 }, expect: 201 });

  const site = await startSite(hostPage(publishable));
  const ctx = await browser().newContext({ viewport: { width: 1000, height: 800 } });
  ctx.setDefaultTimeout(15_000);
  const page = await ctx.newPage();
  const problems = [];
  const sent = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  page.on('request', (r) => sent.push(`${r.url()} ${JSON.stringify(r.headers())} ${r.postData() ?? ''}`));
  try {
    await page.goto(`${site.origin}/`);

    // Changelog: two entries never seen.
    const news = page.locator('[data-shipmate="changelog"]');
    const badge = news.locator('.badge');
    await waitFor(async () => (await badge.isVisible()) && (await badge.textContent()) === '2', 'badge 2', 10_000);
    await news.locator('button').first().click();
    await news.locator('.panel li[data-id]').nth(1).waitFor();
    assert.ok(await badge.isHidden(), 'opening the panel clears the badge');
    assert.equal(await news.locator('.panel li[data-id] p').first().textContent(), 'Release 2', 'newest first');
    await shot(page, '#news', 'changelog');
    await page.keyboard.press('Escape');
    assert.ok(await news.locator('.panel').isHidden(), 'Escape closes');
    assert.equal(await page.evaluate(() => document.querySelector('[data-shipmate="changelog"]').shadowRoot.activeElement?.tagName), 'BUTTON', 'focus back on the button');

    await page.reload();
    await news.locator('.panel li[data-id]').nth(1).waitFor({ state: 'attached' });
    assert.ok(await badge.isHidden(), 'nothing new after a look');
    await api('POST', changelog, { token, body: { title: 'Release 3', content: 'New.', type: 'feature', published: true }, expect: 201 });
    await page.reload();
    await waitFor(async () => (await badge.isVisible()) && (await badge.textContent()) === '1', 'badge 1 after a new entry', 10_000);
    await shot(page, '[data-shipmate="changelog"]', 'changelog-badge');

    // Testimonials and the JSON-LD in the host page's head.
    const reviews = page.locator('[data-shipmate="testimonials"]');
    await reviews.locator('figure').nth(2).waitFor();
    assert.equal(await reviews.locator('figure').count(), 3);
    const ld = await page.evaluate(() => [...document.head.querySelectorAll('script[type="application/ld+json"]')].map((s) => JSON.parse(s.textContent)));
    assert.equal(ld.length, 1);
    assert.equal(ld[0]['@type'], 'AggregateRating');
    assert.equal(ld[0].itemReviewed.name, project.name);
    assert.equal(ld[0].reviewCount, ratings.length);
    assert.equal(ld[0].ratingValue, Math.round((ratings.reduce((a, b) => a + b) / ratings.length) * 100) / 100);
    await shot(page, '#reviews', 'testimonials');

    // Feedback, anonymous: the hint finds the existing request, without vote buttons.
    const fb = page.locator('[data-shipmate="feedback"]');
    await fb.locator('button').first().click();
    const title = fb.locator('input[name="title"]');
    assert.equal(await page.evaluate(() => document.querySelector('[data-shipmate="feedback"]').shadowRoot.activeElement?.name), 'title', 'the form opens on its first field');
    await title.fill('A dark theme');
    await fb.locator(`.hint li[data-id="${existing.id}"]`).waitFor();
    assert.equal(await fb.locator('.hint .vote').count(), 0, 'no votes before identify');
    await fb.locator('select[name="type"]').selectOption('feature');
    await fb.locator('textarea[name="description"]').fill('My eyes hurt at night.');
    await fb.locator('button[type="submit"]').click();
    await waitFor(async () => /^Thanks/.test(await fb.locator('.msg').textContent()), 'the thank-you', 10_000);
    const owned = async () => (await api('GET', `/v1/feedback?project_id=${project.id}&per_page=100`, { token, expect: 200 })).data;
    const anon = (await owned()).find((e) => e.title === 'A dark theme');
    assert.ok(anon, 'the anonymous submission is stored');
    assert.equal(anon.description, 'My eyes hurt at night.');

    // Identified: votes on the hint's entries, and a submission under the user's address.
    const jwt = signJwt(identifySecret, { sub: 'user-42', name: 'Grace Hopper', email: 'grace@example.com', exp: Math.floor(Date.now() / 1000) + 3600 });
    const user = await page.evaluate((t) => window.shipmate.identify(t), jwt);
    assert.equal(user.name, 'Grace Hopper');
    const stored = await page.evaluate(() => Object.entries(sessionStorage).map(([k, v]) => [k, JSON.parse(v).token]));
    assert.equal(stored.length, 1);
    assert.match(stored[0][1], /^eu_/);
    await title.fill('Dark colours at night');
    const vote = fb.locator(`.hint li[data-id="${existing.id}"] .vote`);
    await vote.click();
    await waitFor(async () => (await vote.getAttribute('aria-pressed')) === 'true', 'the vote shown', 10_000);
    const board = await api('GET', `/v1/feedback/by-project/${slug}`, { expect: 200 });
    assert.equal(board.data.find((e) => e.id === existing.id).upvotes, 1, 'the vote counted');
    // Then how much it matters: the vote's importance changes, the count does not.
    await fb.locator(`.hint li[data-id="${existing.id}"] [data-importance="must_have"]`).click();
    await waitFor(async () => (await api('GET', `/v1/feedback?project_id=${project.id}&per_page=100`, { token, expect: 200 }))
      .data.find((e) => e.id === existing.id).importance.must_have === 1, 'the importance counted', 10_000);
    assert.equal(await fb.locator(`.hint li[data-id="${existing.id}"] [data-importance="must_have"]`).getAttribute('aria-pressed'), 'true');
    await shot(page, '#fb', 'feedback');
    await fb.locator('textarea[name="description"]').fill('Please.');
    await fb.locator('button[type="submit"]').click();
    await waitFor(async () => /^Thanks/.test(await fb.locator('.msg').textContent()) && (await title.inputValue()) === '', 'the second thank-you', 10_000);
    const mine = (await owned()).find((e) => e.title === 'Dark colours at night');
    assert.equal(mine?.submitter_email, 'grace@example.com', 'the identified user hears back');

    await page.keyboard.press('Escape');
    assert.ok(await fb.locator('.panel').isHidden(), 'Escape closes the form');

    for (const secret of [secretKey, identifySecret]) {
      assert.ok(!sent.some((r) => r.includes(secret)), 'no request carries the secret key or the identify secret');
    }
    assert.deepEqual(problems, [], 'no console errors, page errors or failed requests');
  } finally {
    await ctx.close();
    await site.close();
  }
});

test('a feedback widget with data-board posts to that board, and a segment board serves its segment only', { timeout: 120_000 }, async () => {
  const { token, project, key: secretKey, slug } = await setup('widget-board');
  const { identify_secret: identifySecret } = await api('POST', `/v1/projects/${project.id}/identify-secret/rotate`, { token, expect: 200 });
  const board = await api('POST', `/v1/projects/${project.id}/boards`, { token, body: { name: 'Enterprise', slug: 'enterprise', visibility: 'segment', segment: { plan: 'enterprise' } }, expect: 201 });
  const existing = await api('POST', '/v1/feedback', { key: secretKey, body: { title: 'Audit log export', type: 'feature', board: 'enterprise' }, expect: 201 });
  await waitFor(async () => (await api('GET', `/v1/feedback/by-project/${slug}/similar?q=audit`, { token, expect: 200 }))
    .data.some((e) => e.id === existing.id), 'the entry embedded (is shipmate-worker running?)');

  const html = hostPage(project.publishable_key).replace('<div data-shipmate="feedback"></div>', '<div data-shipmate="feedback" data-board="enterprise"></div>');
  const site = await startSite(html);
  const ctx = await browser().newContext({ viewport: { width: 1000, height: 800 } });
  ctx.setDefaultTimeout(15_000);
  const page = await ctx.newPage();
  try {
    await page.goto(`${site.origin}/`);
    const fb = page.locator('[data-shipmate="feedback"]');
    await fb.locator('button').first().click();
    // Anonymous: the segment board is not theirs; nothing is stored.
    await fb.locator('input[name="title"]').fill('Anonymous wish');
    await fb.locator('button[type="submit"]').click();
    await waitFor(async () => /not found|Could not/i.test(await fb.locator('.msg').textContent()), 'the refusal', 10_000);

    // An end user of the segment: the hint finds the board's entry, the submission lands on the board.
    const jwt = signJwt(identifySecret, { sub: 'ent-1', name: 'Ada', exp: Math.floor(Date.now() / 1000) + 3600, attributes: { plan: 'enterprise' } });
    await page.evaluate((t) => window.shipmate.identify(t), jwt);
    await fb.locator('input[name="title"]').fill('Audit logs for admins');
    await fb.locator(`.hint li[data-id="${existing.id}"]`).waitFor();
    await fb.locator('button[type="submit"]').click();
    await waitFor(async () => /^Thanks/.test(await fb.locator('.msg').textContent()), 'the thank-you', 10_000);
    const { data } = await api('GET', `/v1/feedback?project_id=${project.id}&board=enterprise`, { token, expect: 200 });
    assert.deepEqual(data.map((e) => e.title).sort(), ['Audit log export', 'Audit logs for admins']);
    assert.ok(data.every((e) => e.board_id === board.id));
    const { data: all } = await api('GET', `/v1/feedback?project_id=${project.id}`, { token, expect: 200 });
    assert.ok(!all.some((e) => e.title === 'Anonymous wish'), 'the refused submission is not stored');
  } finally {
    await ctx.close();
    await site.close();
  }
});
