// Headless Chromium tests of the public pages (/f, /t, /c) against a running shipmate-api with
// dev login on. Run through tests/browser/run.sh, or set SHIPMATE_API_URL and run `node --test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import path from 'node:path';
import { API, SHOTS, PHONE, useBrowser, api, login, setup } from './support.mjs';

const browser = useBrowser();

function feedback(s, body) {
  return api('POST', '/v1/feedback', { key: s.key, body, expect: 201 });
}

/** Runs `fn` with a fresh phone-sized page; fails on script errors and CSP violations. */
async function withPage(fn, { session } = {}) {
  const ctx = await browser().newContext({ viewport: PHONE });
  ctx.setDefaultTimeout(15_000);
  if (session) await ctx.addCookies([{ name: 'shipmate_session', value: session, url: API }]);
  const page = await ctx.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  try {
    await fn(page);
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
  }
}

async function waitForText(page, selector, text) {
  await page.waitForFunction(
    ({ selector, text }) => {
      const el = document.querySelector(selector);
      return !!el && el.textContent.trim() === text;
    },
    { selector, text },
    { timeout: 10_000 },
  );
}

async function noHorizontalScroll(page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `page scrolls sideways by ${overflow}px at ${PHONE.width}px`);
}

test('board page shows entries and vote counts on a phone', { timeout: 60_000 }, async () => {
  const s = await setup('board');
  const feature = await feedback(s, { title: 'Dark mode', description: 'Easier on the eyes at night.', type: 'feature' });
  const bug = await feedback(s, { title: 'Export crashes on Safari', description: 'Clicking Export shows a blank page.', type: 'bug' });
  await api('PATCH', `/v1/feedback/${bug.id}`, { token: s.token, body: { status: 'in_progress' }, expect: 200 });
  await api('POST', `/v1/feedback/${feature.id}/upvote`, { token: s.token, expect: 200 });
  const fan = await login(`fan-${s.slug}@example.com`);
  await api('POST', `/v1/feedback/${feature.id}/upvote`, { token: fan, expect: 200 });

  await withPage(async (page) => {
    const res = await page.goto(`${API}/f/${s.slug}`);
    assert.equal(res.status(), 200);
    for (const title of ['Dark mode', 'Export crashes on Safari']) {
      assert.ok(await page.getByRole('heading', { name: title }).isVisible(), `${title} is visible`);
    }
    const ups = page.locator(`[data-entry="${feature.id}"] [data-upvotes]`);
    assert.ok(await ups.isVisible());
    assert.equal((await ups.textContent()).trim(), '2');
    assert.equal((await page.locator(`[data-entry="${feature.id}"] [data-score]`).textContent()).trim(), '2');
    assert.equal((await page.locator(`[data-entry="${bug.id}"] [data-upvotes]`).textContent()).trim(), '0');
    assert.ok(await page.locator(`[data-entry="${bug.id}"] .badge`, { hasText: 'In progress' }).isVisible(), 'status badge');
    assert.ok(await page.getByRole('link', { name: 'Sign in to vote' }).isVisible());
    assert.equal(await page.locator('button[data-vote]').count(), 0, 'no vote buttons when signed out');
    await noHorizontalScroll(page);
    await page.screenshot({ path: path.join(SHOTS, 'board.png'), fullPage: true });
  });
});

test('signed-in visitor upvotes a feature request from the board', { timeout: 60_000 }, async () => {
  const s = await setup('vote');
  const feature = await feedback(s, { title: 'Keyboard shortcuts', type: 'feature' });
  const bug = await feedback(s, { title: 'Typo on pricing page', type: 'bug' });
  const voter = await login(`voter-${s.slug}@example.com`);

  await withPage(async (page) => {
    await page.goto(`${API}/f/${s.slug}`);
    const counts = `[data-entry="${feature.id}"] [data-upvotes]`;
    await waitForText(page, counts, '0');
    assert.equal(await page.locator(`[data-entry="${bug.id}"] button[data-vote]`).count(), 0, 'bugs take no votes');
    const up = page.locator(`[data-entry="${feature.id}"] button[data-vote="up"]`);
    assert.equal(await up.getAttribute('aria-pressed'), 'false');
    await up.click();
    await waitForText(page, counts, '1');
    await waitForText(page, `[data-entry="${feature.id}"] [data-score]`, '1');
    assert.equal(await up.getAttribute('aria-pressed'), 'true');
    assert.equal((await page.locator('#board-msg').textContent()).trim(), '', 'no error message');
  }, { session: voter });

  const list = await api('GET', `/v1/feedback/by-project/${s.slug}`, { expect: 200 });
  const entry = list.data.find((e) => e.id === feature.id);
  assert.ok(entry, 'the entry is listed');
  assert.equal(entry.upvotes, 1);
  assert.equal(entry.downvotes, 0);

  // The board remembers the vote on reload.
  await withPage(async (page) => {
    await page.goto(`${API}/f/${s.slug}`);
    const up = page.locator(`[data-entry="${feature.id}"] button[data-vote="up"]`);
    assert.equal(await up.getAttribute('aria-pressed'), 'true');
  }, { session: voter });
});

test('testimonial form shows errors inline, then thanks the author', { timeout: 60_000 }, async () => {
  const s = await setup('tform');

  await withPage(async (page) => {
    const res = await page.goto(`${API}/t/${s.slug}`);
    assert.equal(res.status(), 200);
    const box = await page.locator('#website').boundingBox();
    assert.ok(!box || box.x + box.width <= 0, 'the honeypot is off-screen');

    await page.fill('#author_name', '');
    await page.fill('#author_email', 'not-an-email');
    await page.click('button[type="submit"]');
    await page.locator('#err-author_name').waitFor({ state: 'visible' });
    assert.match(await page.locator('#err-author_name').textContent(), /required/i);
    await page.locator('#err-author_email').waitFor({ state: 'visible' });
    assert.match(await page.locator('#err-author_email').textContent(), /email/i);
    assert.match(await page.locator('#err-rating').textContent(), /required/i);
    assert.match(await page.locator('#err-content').textContent(), /required/i);
    assert.equal(await page.locator('#author_email').getAttribute('aria-invalid'), 'true');
    assert.ok(await page.locator('#thanks').isHidden());
    await noHorizontalScroll(page);
    await page.screenshot({ path: path.join(SHOTS, 'testimonial-invalid.png'), fullPage: true });

    await page.fill('#author_name', 'Ada Lovelace');
    await page.fill('#author_email', 'ada@example.com');
    await page.fill('#author_title', 'CTO, Analytical Engines');
    await page.fill('#content', 'Shipmate let us close the loop with our users in an afternoon.');
    await page.click('label[for="rating-4"]');
    assert.ok(await page.locator('#rating-4').isChecked(), '4 stars picked');
    await page.click('button[type="submit"]');
    await page.locator('#thanks').waitFor({ state: 'visible' });
    assert.ok(await page.locator('#testimonial').isHidden(), 'the form is replaced');
    await page.screenshot({ path: path.join(SHOTS, 'testimonial-thanks.png'), fullPage: true });
  });

  const all = await api('GET', `/v1/testimonials/all?project_id=${s.project.id}`, { token: s.token, expect: 200 });
  assert.equal(all.data.length, 1, 'exactly one testimonial stored');
  const [t] = all.data;
  assert.equal(t.status, 'pending');
  assert.equal(t.rating, 4);
  assert.equal(t.author_name, 'Ada Lovelace');
  assert.equal(t.author_email, 'ada@example.com');
  assert.equal(all.stats.pending, 1);
});

test('changelog page shows published Markdown safely and hides drafts', { timeout: 60_000 }, async () => {
  const s = await setup('clog');
  const content = [
    '## Highlights',
    '',
    '- **Sync** is twice as fast',
    '- Smaller bundle',
    '',
    '<script>window.__pwned = 1</script>',
    '',
    'Do not [click me](javascript:window.__pwned=2), read the [docs](https://example.com/docs) instead.',
  ].join('\n');
  const path0 = `/v1/changelog/dashboard/${s.project.id}`;
  await api('POST', path0, { token: s.token, body: { title: 'Faster sync', content, type: 'improvement', published: true }, expect: 201 });
  await api('POST', path0, { token: s.token, body: { title: 'Unannounced pricing', content: 'Secret plans.', type: 'breaking', published: false }, expect: 201 });

  await withPage(async (page) => {
    const res = await page.goto(`${API}/c/${s.slug}`);
    assert.equal(res.status(), 200);
    assert.ok(await page.getByRole('heading', { name: 'Faster sync' }).isVisible());
    assert.equal(await page.getByText('Unannounced pricing').count(), 0, 'the draft stays hidden');
    assert.equal(await page.getByText('Secret plans.').count(), 0);
    assert.ok(await page.getByRole('heading', { name: 'Highlights' }).isVisible());
    assert.ok(await page.locator('.prose strong', { hasText: 'Sync' }).isVisible());
    assert.equal(await page.locator('.prose li').count(), 2);
    assert.equal(await page.evaluate(() => typeof window.__pwned), 'undefined', 'no script ran');
    assert.equal(await page.locator('a[href^="javascript:"]').count(), 0);
    assert.equal(await page.locator('script:not([src])').count(), 0);
    assert.equal(await page.locator('a[href="https://example.com/docs"]').getAttribute('rel'), 'noopener noreferrer nofollow');
    assert.equal(await page.locator('link[rel="alternate"][type="application/atom+xml"]').count(), 1);
    await page.locator('.prose a', { hasText: 'click me' }).click();
    assert.equal(await page.evaluate(() => typeof window.__pwned), 'undefined', 'the link does nothing');
    await noHorizontalScroll(page);
    await page.screenshot({ path: path.join(SHOTS, 'changelog.png'), fullPage: true });
  });
});
