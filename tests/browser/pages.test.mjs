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

/** Every console error of the page, from now on (the board's tests allow none). */
function consoleErrors(page) {
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return errors;
}

/** Answers the board's "is this already asked?" requests with `data`; returns the URLs asked. */
async function stubSimilar(page, slug, data) {
  const asked = [];
  await page.route(`${API}/v1/feedback/by-project/${slug}/similar?**`, (route) => {
    asked.push(route.request().url());
    return route.fulfill({ json: { data } });
  });
  return asked;
}

test('board form shows field errors, adds the entry, and says when it awaits moderation', { timeout: 60_000 }, async () => {
  const s = await setup('bform');
  await feedback(s, { title: 'Existing idea', type: 'feature' });

  await withPage(async (page) => {
    const errors = consoleErrors(page);
    await stubSimilar(page, s.slug, []);
    await page.goto(`${API}/f/${s.slug}`);
    await page.locator('#feedback-form').waitFor({ state: 'visible' });
    const box = await page.locator('#website').boundingBox();
    assert.ok(!box || box.x + box.width <= 0, 'the honeypot is off-screen');

    await page.fill('#fb-email', 'not-an-email');
    await page.click('#feedback-form button[type="submit"]');
    await page.locator('#fb-err-title').waitFor({ state: 'visible' });
    assert.match(await page.locator('#fb-err-title').textContent(), /required/i);
    assert.match(await page.locator('#fb-err-submitter_email').textContent(), /email/i);
    assert.equal(await page.locator('#fb-title').getAttribute('aria-invalid'), 'true');

    await page.fill('#fb-title', 'Offline mode');
    await page.selectOption('#fb-type', 'feature');
    await page.fill('#fb-description', 'Work on the train.');
    await page.fill('#fb-email', 'rider@example.com');
    await page.click('#feedback-form button[type="submit"]');
    await page.locator('#submit-done').waitFor({ state: 'visible' });
    assert.match(await page.locator('#submit-done').textContent(), /is on the board/);
    assert.ok(await page.getByRole('heading', { name: 'Offline mode' }).isVisible(), 'the entry appears');
    await waitForText(page, '#entry-count', '2');
    assert.match(await page.locator('.page-head .muted').first().textContent(), /^2 entries/);
    assert.equal(await page.inputValue('#fb-title'), '', 'the form is cleared');
    await noHorizontalScroll(page);
    await page.screenshot({ path: path.join(SHOTS, 'board-submitted.png'), fullPage: true });
    // The invalid attempt's 422 is logged by the browser itself, which no script can prevent.
    assert.deepEqual(errors.filter((e) => !/status of 422/.test(e)), [], 'no console errors');
  });
  const board = await api('GET', `/v1/feedback/by-project/${s.slug}`, { expect: 200 });
  assert.ok(board.data.some((e) => e.title === 'Offline mode' && e.description === 'Work on the train.'));

  await api('PATCH', `/v1/projects/${s.project.id}`, { token: s.token, body: { feedback_moderation: true }, expect: 200 });
  await withPage(async (page) => {
    const errors = consoleErrors(page);
    await stubSimilar(page, s.slug, []);
    await page.goto(`${API}/f/${s.slug}`);
    await page.fill('#fb-title', 'Held for review');
    await page.click('#feedback-form button[type="submit"]');
    await page.locator('#submit-done').waitFor({ state: 'visible' });
    assert.match(await page.locator('#submit-done').textContent(), /awaits moderation/);
    assert.equal(await page.getByRole('heading', { name: 'Held for review' }).count(), 0, 'not on the board yet');
    assert.deepEqual(errors, [], 'no console errors');
  });
  const all = await api('GET', `/v1/feedback?project_id=${s.project.id}`, { token: s.token, expect: 200 });
  assert.equal(all.data.find((e) => e.title === 'Held for review').moderation, 'pending');
});

test('typing a title asks for similar entries and lists them as links', { timeout: 60_000 }, async () => {
  const s = await setup('similar');
  const dark = await feedback(s, { title: 'Dark mode', type: 'feature' });

  await withPage(async (page) => {
    const errors = consoleErrors(page);
    const asked = await stubSimilar(page, s.slug, [
      { id: dark.id, title: 'Dark mode', type: 'feature', status: 'planned', score: 3, similarity: 0.91 },
      { id: '0190aaaa-0000-7000-8000-000000000001', title: 'Night <theme>', type: 'feature', status: 'in_progress', score: 1, similarity: 0.7 },
    ]);
    await page.goto(`${API}/f/${s.slug}`);
    await page.locator('#fb-title').pressSequentially('da');
    await page.waitForTimeout(600);
    assert.equal(asked.length, 0, 'two characters ask nothing');
    assert.ok(await page.locator('#similar').isHidden());

    await page.locator('#fb-title').pressSequentially('rk theme', { delay: 30 });
    await page.locator('#similar').waitFor({ state: 'visible' });
    assert.equal(asked.length, 1, 'one request after the typing pauses');
    assert.equal(new URL(asked[0]).searchParams.get('q'), 'dark theme');
    const here = page.locator('#similar-list a', { hasText: 'Dark mode' });
    assert.equal(await here.getAttribute('href'), `#entry-${dark.id}`, 'an entry on this page is a jump');
    const away = page.locator('#similar-list a', { hasText: 'Night <theme>' });
    assert.match(await away.getAttribute('href'), /\?type=feature&status=in_progress#entry-/);
    assert.match(await page.locator('#similar-list li').first().textContent(), /Planned · 3 votes/);
    await page.screenshot({ path: path.join(SHOTS, 'board-similar.png'), fullPage: true });

    // A failing call (the endpoint missing, say) hides the hint and bothers nobody; the browser
    // itself logs the 404, which no script can prevent.
    await page.unroute(`${API}/v1/feedback/by-project/${s.slug}/similar?**`);
    await page.route(`${API}/v1/feedback/by-project/${s.slug}/similar?**`, (route) =>
      route.fulfill({ status: 404, json: { type: 'about:blank', title: 'Not Found', status: 404 } }));
    await page.locator('#fb-title').pressSequentially('s');
    await page.locator('#similar').waitFor({ state: 'hidden' });
    assert.deepEqual(errors.filter((e) => !/status of 404/.test(e)), [], 'no console errors');
  });
});

test('signed-in visitor reads the team answer and adds a comment', { timeout: 60_000 }, async () => {
  const s = await setup('comment');
  const feature = await feedback(s, { title: 'Calendar sync', type: 'feature' });
  await api('POST', `/v1/feedback/${feature.id}/comments`, { token: s.token, body: { body: 'We are looking into it.' }, expect: 201 });
  const fan = await login(`fan-${s.slug}@example.com`, 'Grace Hopper');

  await withPage(async (page) => {
    const errors = consoleErrors(page);
    await page.goto(`${API}/f/${s.slug}`);
    const box = page.locator(`[data-comments="${feature.id}"]`);
    await waitForText(page, `[data-comments="${feature.id}"] [data-comment-count]`, '1');
    await box.locator('summary').click();
    const team = box.locator('.comment', { hasText: 'We are looking into it.' });
    await team.waitFor({ state: 'visible' });
    assert.ok(await team.locator('.team', { hasText: 'Team' }).isVisible(), 'the official answer is marked');

    await box.locator('textarea').fill('Google Calendar please.');
    await box.locator('button[type="submit"]').click();
    const mine = box.locator('.comment', { hasText: 'Google Calendar please.' });
    await mine.waitFor({ state: 'visible' });
    assert.match(await mine.textContent(), /Grace Hopper/);
    assert.equal(await mine.locator('.team').count(), 0);
    await waitForText(page, `[data-comments="${feature.id}"] [data-comment-count]`, '2');
    assert.equal(await box.locator('textarea').inputValue(), '');
    await page.screenshot({ path: path.join(SHOTS, 'board-comments.png'), fullPage: true });
    assert.deepEqual(errors, [], 'no console errors');
  }, { session: fan });

  const comments = await api('GET', `/v1/feedback/${feature.id}/comments`, { expect: 200 });
  assert.deepEqual(comments.data.map((c) => [c.body, c.official]), [['We are looking into it.', true], ['Google Calendar please.', false]]);

  await withPage(async (page) => {
    await page.goto(`${API}/f/${s.slug}`);
    const box = page.locator(`[data-comments="${feature.id}"]`);
    await box.locator('summary').click();
    await box.locator('.comment').nth(1).waitFor({ state: 'visible' });
    assert.ok(await box.getByRole('link', { name: 'Sign in to comment' }).isVisible());
    assert.equal(await box.locator('textarea').count(), 0);
  });
});

test('roadmap shows each stage in its column and shipped entries link to the changelog', { timeout: 60_000 }, async () => {
  const s = await setup('roadmap');
  await feedback(s, { title: 'Team spaces', type: 'feature' });
  const building = await feedback(s, { title: 'Faster search', type: 'feature' });
  const done = await feedback(s, { title: 'CSV export', type: 'feature' });
  await api('PATCH', `/v1/feedback/${building.id}`, { token: s.token, body: { status: 'in_progress' }, expect: 200 });
  const release = await api('POST', `/v1/changelog/dashboard/${s.project.id}`, {
    token: s.token,
    body: { title: 'Exports are here', content: 'Download everything as CSV.', type: 'feature', published: true, feedback_ids: [done.id] },
    expect: 201,
  });

  await withPage(async (page) => {
    const errors = consoleErrors(page);
    await page.goto(`${API}/f/${s.slug}`);
    await page.getByRole('link', { name: 'Roadmap' }).click();
    await page.waitForURL(`${API}/f/${s.slug}/roadmap`);
    const titles = (col) => page.locator(`[data-column="${col}"] .road-item h3`).allTextContents();
    assert.deepEqual(await titles('planned'), ['Team spaces']);
    assert.deepEqual(await titles('in_progress'), ['Faster search']);
    assert.deepEqual(await titles('shipped'), ['CSV export']);
    await noHorizontalScroll(page);
    await page.screenshot({ path: path.join(SHOTS, 'roadmap.png'), fullPage: true });

    await page.goto(`${API}/f/${s.slug}`);
    const link = page.locator(`[data-entry="${done.id}"] .shipped-in a`);
    assert.equal((await link.textContent()).trim(), 'Exports are here');
    await link.click();
    await page.waitForURL(`${API}/c/${s.slug}#${release.id}`);
    const back = page.locator('.answers a', { hasText: 'CSV export' });
    assert.equal(await back.getAttribute('href'), `/f/${s.slug}#entry-${done.id}`);
    assert.deepEqual(errors, [], 'no console errors');
  });

  const empty = await setup('roadempty');
  await withPage(async (page) => {
    await page.goto(`${API}/f/${empty.slug}/roadmap`);
    for (const text of ['Nothing planned right now.', 'Nothing in progress right now.', 'Nothing shipped in the last 90 days.']) {
      assert.ok(await page.getByText(text).isVisible(), text);
    }
  });
});
