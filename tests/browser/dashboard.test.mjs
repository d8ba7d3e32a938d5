// Headless Chromium test of the dashboard (/dashboard) against a running shipmate-api with dev login
// on and a shipmate-worker beside it (document embedding, analytics). Run through
// tests/browser/run.sh, or set SHIPMATE_API_URL and run `node --test dashboard.test.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

import { API, SHOTS, PHONE, DESKTOP, useBrowser, api, login, heading, openOwnerPage } from './support.mjs';

// Analytics drops bots and unknown clients, so seeded events carry an ordinary browser's user agent.
const BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

const DOCUMENT = [
  'Exporting feedback',
  '',
  'Open the dashboard, choose your project and go to Settings. The Export button downloads every feedback',
  'entry as a CSV file with its title, type, status, votes and the submitter email.',
  '',
  'Billing questions go to the billing page; invoices are sent by email at the start of each month.',
].join('\n');

const browser = useBrowser();


async function shot(page, name, opts = {}) {
  // The status toast is fixed to the viewport; in a full-page capture it would cover content.
  await page.evaluate(() => { const t = document.querySelector('#status'); if (t) t.textContent = ''; });
  await page.screenshot({ path: path.join(SHOTS, `dashboard-${name}.png`), fullPage: true, ...opts });
}

async function waitForText(page, selector, text, timeout = 10_000) {
  await page.waitForFunction(
    ({ selector, text }) => {
      const el = document.querySelector(selector);
      return !!el && el.textContent.trim() === text;
    },
    { selector, text },
    { timeout },
  );
}

async function noHorizontalScroll(page, width) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `page scrolls sideways by ${overflow}px at ${width}px`);
}

/** Opens a section from the side navigation and waits for its heading. */
async function openSection(page, section, heading) {
  await page.click(`#sidenav a[href$="/${section}"]`);
  await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
}

test('an owner runs a project end to end from the dashboard', { timeout: 240_000 }, async () => {
  const tag = randomBytes(4).toString('hex');
  const email = `dash-${tag}@example.com`;
  const slug = `dash-${tag}`;
  // Someone else already holds this slug, for the 409 check.
  const rival = await login(`rival-${tag}@example.com`);
  await api('POST', '/v1/projects', { token: rival, body: { name: 'Taken', slug: `${slug}-taken` }, expect: 201 });

  const ctx = await browser().newContext({ viewport: DESKTOP });
  ctx.setDefaultTimeout(15_000);
  const page = await ctx.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to|module script/i.test(m.text())) problems.push(m.text());
  });

  try {
    // Sign-in screen: the dev-login form shows because the probe did not answer 404.
    const res = await page.goto(`${API}/dashboard`);
    assert.equal(res.status(), 200);
    assert.match(res.headers()['content-security-policy'] || '', /script-src 'self'/);
    await page.locator('#dev-email').waitFor();
    assert.ok(await page.getByRole('heading', { level: 1, name: 'Sign in to Shipmate' }).isVisible());
    await shot(page, 'signin');
    await page.fill('#dev-email', email);
    await page.click('#dev-login button[type="submit"]');
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    assert.equal((await page.locator('.account-email').textContent()).trim(), email);
    const token = await login(email); // the same user, for checks through the API

    // Projects: a 422 and a 409 shown inline, then a project is created.
    await page.fill('#project-name', 'Acme Dashboard');
    await page.fill('#project-slug', 'x');
    await page.click('#create-project button[type="submit"]');
    await page.locator('#project-slug-err').waitFor({ state: 'visible' });
    assert.match(await page.locator('#project-slug-err').textContent(), /3 to 48/);
    assert.equal(await page.getAttribute('#project-slug', 'aria-invalid'), 'true');
    await page.fill('#project-slug', `${slug}-taken`);
    await page.click('#create-project button[type="submit"]');
    await page.waitForFunction(() => /already exists/i.test(document.querySelector('#project-slug-err').textContent));
    await shot(page, 'projects');
    await page.fill('#project-slug', slug);
    await page.click('#create-project button[type="submit"]');

    // Settings: key, snippets, public links.
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    const key = await page.inputValue('#api-key');
    const publishable = await page.inputValue('#publishable-key');
    assert.match(key, /^pk_/);
    assert.match(publishable, /^pk_/);
    const { data: projects } = await api('GET', '/v1/projects', { token, expect: 200 });
    const project = projects.find((p) => p.slug === slug);
    assert.ok(project, 'the project was created');
    assert.equal(project.api_key, key);
    assert.equal(project.publishable_key, publishable);
    // The secret key is masked until revealed, and no snippet carries it.
    assert.equal(await page.getAttribute('#api-key', 'type'), 'password');
    await page.click('#reveal-key');
    assert.equal(await page.getAttribute('#api-key', 'type'), 'text');
    await page.click('#reveal-key');
    const scriptTag = await page.locator('#script-snippet').textContent();
    assert.ok(scriptTag.includes(`data-project="${publishable}"`) && scriptTag.includes(`src="${API}/sdk/sm.js"`), scriptTag);
    const sdkSnippet = await page.locator('#sdk-snippet').textContent();
    assert.match(sdkSnippet, new RegExp(`apiKey: '${publishable}'`));
    const widgetSnippets = [];
    for (const kind of ['feedback', 'changelog', 'testimonials']) {
      const w = await page.locator(`#widget-${kind}-snippet`).textContent();
      assert.ok(w.includes(`data-project="${publishable}"`) && w.includes(`src="${API}/sdk/widgets.js"`) && w.includes(`<div data-shipmate="${kind}"></div>`), w);
      widgetSnippets.push(w);
    }
    for (const snippet of [scriptTag, sdkSnippet, ...widgetSnippets]) assert.ok(!snippet.includes(key), 'a snippet shows the secret key');
    // The live preview runs the real widgets with the publishable key, under the dashboard's strict CSP.
    await page.waitForFunction(() => document.querySelector('#widget-preview [data-shipmate="feedback"]')?.shadowRoot?.querySelector('button'));
    assert.equal(await page.locator('script[data-shipmate-preview]').getAttribute('data-project'), publishable);
    assert.ok(await page.evaluate(() => !!document.querySelector('#widget-preview [data-shipmate="changelog"]').shadowRoot));
    // Three named widgets; the empty testimonials wall says why it is empty.
    assert.deepEqual(await page.locator('#widget-preview .widget-preview-label').allTextContents(), ['Feedback button', 'Changelog', 'Testimonials']);
    await page.locator('#widget-preview-testimonials-note', { hasText: 'No approved testimonials yet' }).waitFor();
    // Back on Settings after another view, the preview mounts again.
    await openSection(page, 'feedback', 'Feedback');
    await openSection(page, 'settings', 'Settings');
    await page.waitForFunction(() => document.querySelector('#widget-preview [data-shipmate="testimonials"]')?.shadowRoot);
    for (const prefix of ['f', 't', 'c']) {
      assert.equal(await page.locator(`#public-pages a[href="/${prefix}/${slug}"]`).count(), 1, `link to /${prefix}/${slug}`);
    }
    await shot(page, 'settings');

    // Feedback moderation.
    const fb = await api('POST', '/v1/feedback', {
      key,
      body: { title: 'Dark mode please', description: 'Easier on the eyes at night.', type: 'feature', submitter_email: 'fan@example.com' },
      expect: 201,
    });
    await api('POST', '/v1/feedback', { key, body: { title: 'Export button does nothing', type: 'bug' }, expect: 201 });
    const tm = await api('POST', '/v1/testimonials', {
      key,
      body: { author_name: 'Ada Lovelace', author_email: 'ada@example.com', author_title: 'CTO, Engines', content: 'Shipmate closed the loop with our users in an afternoon.', rating: 5 },
      expect: 201,
    });
    await openSection(page, 'feedback', 'Feedback');
    const entry = page.locator(`[data-feedback="${fb.id}"]`);
    await entry.waitFor();
    assert.equal((await entry.locator('[data-email]').textContent()).trim(), 'fan@example.com');
    assert.deepEqual(
      await entry.locator('select').evaluate((s) => [...s.options].map((o) => o.value)),
      ['planned', 'in_progress', 'shipped', 'cancelled'],
      'a feature request offers the feature statuses only',
    );
    await entry.locator('select').selectOption('in_progress');
    await waitForText(page, `[data-feedback="${fb.id}"] [data-status-badge]`, 'In progress');
    const owned = await api('GET', `/v1/feedback?project_id=${project.id}`, { token, expect: 200 });
    assert.equal(owned.data.find((e) => e.id === fb.id).status, 'in_progress');
    await shot(page, 'feedback');

    // Testimonials.
    await openSection(page, 'testimonials', 'Testimonials');
    await page.locator(`[data-testimonial="${tm.id}"]`).waitFor();
    await waitForText(page, '[data-metric="pending"]', '1');
    await page.click(`[data-testimonial="${tm.id}"] [data-action="approve"]`);
    await waitForText(page, '[data-metric="approved"]', '1');
    await waitForText(page, `[data-testimonial="${tm.id}"] .badge`, 'Approved');
    const approved = await api('GET', '/v1/testimonials', { key, expect: 200 });
    assert.ok(approved.data.some((t) => t.id === tm.id), 'the approved testimonial is public');
    await shot(page, 'testimonials');

    // Changelog: a draft with a live preview, rendered and sanitised by the server as on the public
    // page, then published.
    await openSection(page, 'changelog', 'Changelog');
    await page.click('#new-entry');
    await page.fill('#cl-title', 'Dark mode is here');
    await page.selectOption('#cl-type', 'feature');
    const previewAnswer = page.waitForResponse((r) => r.url().endsWith('/v1/markdown/preview') && r.request().method() === 'POST');
    await page.fill('#cl-content', [
      '## Highlights',
      '',
      '- **Dark** theme everywhere',
      '- Follows *your* system setting',
      '',
      'Read the [docs](https://example.com/docs), not [this](javascript:window.__pwned=1).',
      '',
      '<img src=x onerror="window.__pwned=2">',
    ].join('\n'));
    await waitForText(page, '#cl-preview strong', 'Dark');
    const rendered = await previewAnswer;
    assert.equal(rendered.status(), 200);
    assert.match((await rendered.json()).html, /<strong>Dark<\/strong>/, 'the bold text comes from the server');
    assert.equal((await page.locator('#cl-preview h2').textContent()).trim(), 'Highlights');
    assert.equal(await page.locator('#cl-preview li').count(), 2);
    assert.equal(await page.locator('#cl-preview a[href="https://example.com/docs"]').count(), 1);
    assert.equal(await page.locator('#cl-preview a[href^="javascript:"]').count(), 0);
    assert.equal(await page.locator('#cl-preview [onerror]').count(), 0);
    assert.equal(await page.evaluate(() => typeof window.__pwned), 'undefined');
    // Typing asks the server once it pauses, not on every key.
    let previews = 0;
    const countPreview = (r) => { if (r.url().endsWith('/v1/markdown/preview')) previews += 1; };
    page.on('request', countPreview);
    await page.locator('#cl-content').pressSequentially('\n\nAlso **faster**', { delay: 20 });
    await waitForText(page, '#cl-preview p:last-child strong', 'faster');
    page.off('request', countPreview);
    assert.ok(previews >= 1 && previews <= 2, `${previews} preview requests while typing`);
    await shot(page, 'changelog-editor');
    await page.click('#changelog-editor button[type="submit"]');
    const row = page.locator('[data-entry]', { hasText: 'Dark mode is here' });
    await row.waitFor();
    assert.equal((await api('GET', '/v1/changelog', { key, expect: 200 })).data.length, 0, 'a draft is not public');
    await row.locator('[data-action="toggle-publish"]').click();
    await page.locator('[data-entry] [data-action="toggle-publish"]', { hasText: 'Unpublish' }).waitFor();
    const published = await api('GET', '/v1/changelog', { key, expect: 200 });
    assert.deepEqual(published.data.map((e) => e.title), ['Dark mode is here']);
    await shot(page, 'changelog');

    // Knowledge base: an index, a document embedded by the worker, a search with scores.
    await openSection(page, 'knowledge', 'Knowledge base');
    await page.locator('#create-index').waitFor();
    const offered = await page.locator('#index-model option').evaluateAll((os) => os.map((o) => o.value));
    assert.ok(offered.includes('all-minilm-l6-v2'), `all-minilm-l6-v2 is offered (got: ${offered.join(', ') || 'nothing'})`);
    await page.fill('#index-name', 'Help center');
    await page.selectOption('#index-model', 'all-minilm-l6-v2');
    // The option is short (id and size); the description stands under it once, in full.
    assert.equal((await page.locator('#index-model option[value="all-minilm-l6-v2"]').textContent()).trim(), 'all-minilm-l6-v2 (384 dims)');
    assert.match(await page.locator('#index-model-about').textContent(), /English/);
    await shot(page, 'knowledge-indexes');
    await page.click('#create-index button[type="submit"]');
    await page.getByRole('heading', { level: 1, name: 'Help center' }).waitFor();
    await page.fill('#doc-content', DOCUMENT);
    await page.fill('#doc-metadata', '{"source": "faq"}');
    await page.click('#upload-document button[type="submit"]');
    await page.locator('#document-table [data-doc-status]').waitFor();
    await page.waitForFunction(() => {
      const s = document.querySelector('#document-table [data-doc-status]');
      return !!s && ['ready', 'failed'].includes(s.textContent.trim());
    }, null, { timeout: 90_000 });
    assert.equal((await page.locator('#document-table [data-doc-status]').textContent()).trim(), 'ready', 'the document was embedded');
    // The index's progress (a bulk load's documents ready of all) is read with the same poll.
    assert.equal((await page.locator('#index-progress [data-progress]').textContent()).trim(), '1 of 1 document ready');
    await page.fill('#search-query', 'How do I export my feedback as CSV?');
    await page.click('#search-form button[type="submit"]');
    const score = page.locator('#search-results .result [data-score]').first();
    await score.waitFor();
    const value = Number((await score.textContent()).trim());
    assert.ok(Number.isFinite(value) && value > 0 && value <= 1.0001, `score ${value}`);
    assert.match(await page.locator('#search-results .result-text').first().textContent(), /CSV/);
    assert.match(await page.locator('#search-results .result .json').first().textContent(), /faq/);
    await shot(page, 'knowledge');

    // Analytics: three page views, seen once the worker has stored them.
    const accepted = await api('POST', '/v1/analytics/events', {
      key,
      headers: { 'User-Agent': BROWSER_UA },
      body: {
        events: ['/', '/pricing', '/docs'].map((p) => ({
          name: 'page_view',
          url: `https://acme.example${p}`,
          referrer: 'https://news.ycombinator.com/item?id=1',
          screen_width: 1280,
        })),
      },
      expect: 202,
    });
    assert.equal(accepted.accepted, 3);
    await openSection(page, 'analytics', 'Analytics');
    const views = page.locator('[data-metric="page_views"]');
    await views.waitFor();
    const deadline = Date.now() + 20_000;
    while ((await views.textContent()).trim() !== '3') {
      if (Date.now() > deadline) assert.fail(`page views did not reach 3 within 20 s (shows ${(await views.textContent()).trim()})`);
      await page.waitForTimeout(1000);
      await page.click('#analytics-refresh');
      await page.waitForFunction(() => !document.querySelector('#analytics-refresh').disabled);
    }
    assert.equal(await page.locator('#an-pages tbody tr').count(), 3);
    await page.locator('#analytics-chart svg path.line-views').waitFor();
    await shot(page, 'analytics');

    await page.click('[data-period="7d"]');
    assert.equal(await page.getAttribute('[data-period="7d"]', 'aria-pressed'), 'true');
    await waitForText(page, '[data-metric="page_views"]', '3');

    // The same screen on a phone: no sideways scrolling, navigation behind a menu button.
    await page.setViewportSize(PHONE);
    await page.waitForTimeout(400); // the chart redraws for the new width
    await noHorizontalScroll(page, PHONE.width);
    assert.ok(await page.locator('#nav-toggle').isVisible(), 'menu button on a phone');
    assert.ok(await page.locator('#sidenav').isHidden(), 'navigation collapsed on a phone');
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, 'analytics-phone');
    await page.click('#nav-toggle');
    assert.equal(await page.getAttribute('#nav-toggle', 'aria-expanded'), 'true');
    assert.ok(await page.locator('#sidenav a[href$="/feedback"]').isVisible());
    await page.setViewportSize(DESKTOP);

    // Sign out ends the cookie session.
    await page.click('#sign-out');
    await page.locator('#signin-title').waitFor();
    const me = await page.evaluate(async () => (await fetch('/v1/me', { credentials: 'same-origin' })).status);
    assert.equal(me, 401);

    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
  }
});

test('on a phone, an owner rotates the API key and deletes the project', { timeout: 90_000 }, async () => {
  const tag = randomBytes(4).toString('hex');
  const email = `phone-${tag}@example.com`;
  const slug = `phone-${tag}`;
  const ctx = await browser().newContext({ viewport: PHONE });
  ctx.setDefaultTimeout(15_000);
  const page = await ctx.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });

  try {
    // A deep link survives sign-in: the dashboard comes back to the projects screen.
    await page.goto(`${API}/dashboard/`);
    await page.fill('#dev-email', email);
    await page.click('#dev-login button[type="submit"]');
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    await noHorizontalScroll(page, PHONE.width);
    await page.fill('#project-name', 'Phone Project');
    assert.equal(await page.inputValue('#project-slug'), 'phone-project', 'the slug follows the name');
    await page.fill('#project-slug', slug);
    await page.click('#create-project button[type="submit"]');
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await noHorizontalScroll(page, PHONE.width);
    const oldKey = await page.inputValue('#api-key');

    // Cancelling the dialog keeps the key; confirming issues a new one and retires the old.
    await page.click('#rotate-key');
    await page.locator('#confirm').waitFor({ state: 'visible' });
    await page.click('#confirm-cancel');
    await page.locator('#confirm').waitFor({ state: 'hidden' });
    assert.equal(await page.inputValue('#api-key'), oldKey);
    await page.click('#rotate-key');
    await page.click('#confirm-ok');
    await page.waitForFunction((old) => {
      const k = document.querySelector('#api-key');
      return !!k && k.value !== old && k.value.startsWith('pk_');
    }, oldKey);
    const newKey = await page.inputValue('#api-key');
    await api('GET', '/v1/changelog', { key: oldKey, expect: 401 });
    await api('GET', '/v1/changelog', { key: newKey, expect: 200 });

    // The publishable key rotates on its own; the snippets follow it.
    const oldPublishable = await page.inputValue('#publishable-key');
    await page.click('#rotate-publishable');
    await page.click('#confirm-ok');
    await page.waitForFunction((old) => {
      const k = document.querySelector('#publishable-key');
      return !!k && k.value !== old && k.value.startsWith('pk_');
    }, oldPublishable);
    const newPublishable = await page.inputValue('#publishable-key');
    await api('GET', '/v1/changelog', { key: oldPublishable, expect: 401 });
    await api('GET', '/v1/changelog', { key: newPublishable, expect: 200 });
    assert.ok((await page.locator('#script-snippet').textContent()).includes(newPublishable), 'the snippet shows the new key');
    await shot(page, 'settings-phone');

    // Reloading a client-side route serves the app again.
    const res = await page.reload();
    assert.equal(res.status(), 200);
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();

    await page.click('#delete-project');
    await page.click('#confirm-ok');
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    const token = await login(email);
    const { data } = await api('GET', '/v1/projects', { token, expect: 200 });
    assert.equal(data.length, 0, 'the project is gone');
    await api('GET', '/v1/changelog', { key: newKey, expect: 401 });

    // An unknown project id shows a not-found screen, not a crash.
    await page.goto(`${API}/dashboard/p/00000000-0000-0000-0000-000000000000/feedback`);
    await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();

    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
  }
});

// ---------------------------------------------------------------------------------------------
// The feedback loop (#22): moderation, comments, merges, paging, changelog entries that ship
// the requests they answer.
// ---------------------------------------------------------------------------------------------

/**
 * A new owner with a project, and a desktop page signed in as them on `section` of it. The
 * session cookie is set directly, so no sign-in probe (a 401, a 422) runs: every console error
 * counts as a problem here, a failed request included.
 */
const ownerPage = (label, section) => openOwnerPage(browser(), label, section);

test('a member moderates the board, answers officially and merges a duplicate', { timeout: 120_000 }, async () => {
  const { slug, token, project, key, ctx, page, problems } = await ownerPage('loop', 'settings');
  try {
    // The moderation switch lives in the settings.
    await heading(page, 'Settings');
    const switched = page.waitForResponse((r) => r.url().endsWith(`/v1/projects/${project.id}`) && r.request().method() === 'PATCH');
    await page.check('#feedback-moderation');
    assert.equal((await switched).status(), 200);
    assert.equal((await api('GET', `/v1/projects/${project.id}`, { token, expect: 200 })).feedback_moderation, true);

    const held = await api('POST', `/v1/feedback/by-project/${slug}`, { body: { title: 'Offline mode', type: 'feature' }, expect: 201 });
    assert.equal(held.moderation, 'pending');
    const dark = await api('POST', '/v1/feedback', { key, body: { title: 'Dark mode please', type: 'feature' }, expect: 201 });
    const night = await api('POST', '/v1/feedback', { key, body: { title: 'A night theme', type: 'feature' }, expect: 201 });

    // The review queue holds the board's submission only; approving it takes it out and onto the board.
    await openSection(page, 'feedback', 'Feedback');
    assert.match(await page.locator('#moderation-state').textContent(), /Moderation is on/);
    await page.locator(`[data-feedback="${dark.id}"]`).waitFor();
    await page.click('[data-view="pending"]');
    await page.locator(`[data-feedback="${dark.id}"]`).waitFor({ state: 'detached' });
    const queued = page.locator(`[data-feedback="${held.id}"]`);
    assert.equal(await page.locator('#feedback-list > li').count(), 1, 'only the pending entry is in the queue');
    assert.equal((await queued.locator('[data-moderation-badge]').textContent()).trim(), 'Pending review');
    await shot(page, 'feedback-queue');
    await queued.locator('[data-moderation="approved"]').click();
    await page.locator('#feedback-list').waitFor({ state: 'detached' });
    await page.getByText('Nothing waits for review.').waitFor();
    const board = await api('GET', `/v1/feedback/by-project/${slug}`, { expect: 200 });
    assert.ok(board.data.some((e) => e.id === held.id), 'the approved entry is on the public board');

    // A customer's comment, then the team's answer: official, since a member wrote it.
    const customer = await login(`customer-${slug}@example.com`, 'Cleo Customer');
    const theirs = await api('POST', `/v1/feedback/${dark.id}/comments`, { token: customer, body: { body: 'Please, my eyes hurt.' }, expect: 201 });
    assert.equal(theirs.official, false);
    await page.click('[data-view="all"]');
    const entry = page.locator(`[data-feedback="${dark.id}"]`);
    await entry.waitFor();
    await entry.locator('[data-comments-toggle]').click();
    const mine = entry.locator(`[data-comment="${theirs.id}"]`);
    await mine.waitFor();
    assert.equal(await mine.locator('[data-official]').count(), 0, 'a customer\'s comment is not official');
    await page.fill(`#reply-${dark.id}`, 'On the roadmap for next month.');
    await entry.locator('.reply button[type="submit"]').click();
    const official = entry.locator('.comment.official');
    await official.waitFor();
    assert.equal((await official.locator('[data-official]').textContent()).trim(), 'Official');
    assert.match(await official.locator('.comment-body').textContent(), /next month/);
    await shot(page, 'feedback-comments');
    await mine.locator('[data-action="delete-comment"]').click();
    await page.click('#confirm-ok');
    await mine.waitFor({ state: 'detached' });
    const left = await api('GET', `/v1/feedback/${dark.id}/comments`, { expect: 200 });
    assert.deepEqual(left.data.map((c) => [c.body, c.official]), [['On the roadmap for next month.', true]]);

    // Merge: the similar entries come first (stubbed: the real search waits for the worker's
    // embeddings, and a fixed answer keeps the order known), and the duplicate's vote moves to
    // the entry it is merged into.
    await api('POST', `/v1/feedback/${night.id}/upvote`, { token: customer, expect: 200 });
    const asked = [];
    await page.route('**/similar?*', (route) => {
      asked.push(new URL(route.request().url()));
      return route.fulfill({ json: { data: [{ id: dark.id, title: dark.title, type: 'feature', status: 'planned', score: 0, similarity: 0.87 }] } });
    });
    const dup = page.locator(`[data-feedback="${night.id}"]`);
    await dup.locator('[data-action="merge"]').click();
    const panel = page.locator(`#merge-${night.id}`);
    const suggestion = panel.locator(`[data-group="suggested"] [data-option="${dark.id}"]`);
    await suggestion.waitFor();
    assert.equal(asked[0].pathname, `/v1/feedback/by-project/${slug}/similar`);
    assert.equal(asked[0].searchParams.get('q'), 'A night theme');
    assert.equal(await panel.locator('.picker-list').first().getAttribute('data-group'), 'suggested', 'suggestions come first');
    assert.match(await suggestion.textContent(), /87% similar/);
    assert.equal(await panel.locator(`[data-option="${night.id}"]`).count(), 0, 'an entry is not offered as its own target');
    await suggestion.locator('input').check();
    await shot(page, 'feedback-merge');
    await panel.locator('button[type="submit"]').click();
    await page.click('#confirm-ok');
    await dup.waitFor({ state: 'detached' });
    await waitForText(page, `[data-feedback="${dark.id}"] [data-upvotes]`, '1');
    const after = await api('GET', `/v1/feedback?project_id=${project.id}`, { token, expect: 200 });
    assert.ok(!after.data.some((e) => e.id === night.id), 'the merged entry left the list');
    assert.equal(after.data.find((e) => e.id === dark.id).upvotes, 1, 'its vote moved');
    // Counts read as people say them: one upvote, not "1 upvotes".
    assert.match(await page.locator(`[data-feedback="${dark.id}"] .votes`).getAttribute('aria-label'), /^1 upvote, 0 downvotes,/);

    // On a phone, an entry with its thread and merge form open still fits the width.
    await page.locator(`[data-feedback="${dark.id}"] [data-comments-toggle]`).click();
    await page.locator(`[data-feedback="${dark.id}"] [data-action="merge"]`).click();
    await page.locator(`#merge-${dark.id} .picker`).waitFor();
    await page.setViewportSize(PHONE);
    await noHorizontalScroll(page, PHONE.width);
    await shot(page, 'feedback-phone');

    assert.deepEqual(problems, [], 'no console errors');
  } finally {
    await ctx.close();
  }
});

test('long lists page through every entry', { timeout: 120_000 }, async () => {
  const { key, ctx, page, problems } = await ownerPage('pages', 'feedback');
  try {
    for (let n = 1; n <= 55; n += 1) {
      await api('POST', '/v1/feedback', { key, body: { title: `Request ${n}`, type: 'feature' }, expect: 201 });
      await api('POST', '/v1/testimonials', { key, body: { author_name: `Fan ${n}`, author_email: `fan${n}@example.com`, content: 'Lovely.', rating: 5 }, expect: 201 });
    }
    await page.reload();
    await heading(page, 'Feedback');
    await page.locator('#feedback-list').waitFor();
    assert.equal(await page.locator('#feedback-list > li').count(), 50);
    assert.equal(await page.locator('.pager [data-page-of]').textContent(), 'Page 1 of 2');
    assert.equal(await page.locator('.pager [data-total]').textContent(), '55 entries');
    const firstPage = await page.locator('#feedback-list .record-title').allTextContents();
    await page.click('.pager [data-page="next"]');
    await waitForText(page, '.pager [data-page-of]', 'Page 2 of 2');
    const secondPage = await page.locator('#feedback-list .record-title').allTextContents();
    assert.equal(secondPage.length, 5);
    const all = new Set([...firstPage, ...secondPage]);
    assert.equal(all.size, 55, 'every entry shows once across the pages');
    assert.ok(await page.locator('.pager [data-page="next"]').isDisabled());
    await shot(page, 'feedback-page-2');

    await openSection(page, 'testimonials', 'Testimonials');
    await page.locator('#testimonial-list').waitFor();
    assert.equal(await page.locator('#testimonial-list > li').count(), 50);
    await waitForText(page, '[data-metric="total"]', '55');
    await page.click('.pager [data-page="next"]');
    await waitForText(page, '.pager [data-page-of]', 'Page 2 of 2');
    assert.equal(await page.locator('#testimonial-list > li').count(), 5);

    assert.deepEqual(problems, [], 'no console errors');
  } finally {
    await ctx.close();
  }
});

test('a changelog entry links the requests it answers and ships them when published', { timeout: 90_000 }, async () => {
  const { token, project, key, ctx, page, problems } = await ownerPage('ships', 'changelog');
  try {
    const dark = await api('POST', '/v1/feedback', { key, body: { title: 'Dark mode please', type: 'feature' }, expect: 201 });
    const crash = await api('POST', '/v1/feedback', { key, body: { title: 'Crash when exporting', type: 'bug' }, expect: 201 });
    await api('POST', '/v1/feedback', { key, body: { title: 'Slack integration', type: 'feature' }, expect: 201 });
    await page.reload();
    await heading(page, 'Changelog');
    await page.click('#new-entry');
    await page.fill('#cl-title', 'Dark mode and a sturdier export');
    await page.fill('#cl-content', 'Both **done**.');
    const picker = page.locator('#cl-links');
    await picker.locator('input[type="search"]').waitFor();
    assert.equal(await picker.locator('[data-option]').count(), 3);
    // The search narrows the list by title.
    await picker.locator('input[type="search"]').fill('dark');
    assert.equal(await picker.locator('[data-option]').count(), 1);
    await picker.locator(`[data-option="${dark.id}"] input`).check();
    await picker.locator('input[type="search"]').fill('export');
    await picker.locator(`[data-option="${crash.id}"] input`).check();
    assert.equal(await picker.locator(`[data-option="${dark.id}"] input`).isChecked(), true, 'a chosen entry stays in view');
    await shot(page, 'changelog-links');
    await page.click('#changelog-editor button[type="submit"]');

    const row = page.locator('[data-entry]', { hasText: 'Dark mode and a sturdier export' });
    await row.locator(`[data-linked="${dark.id}"]`).waitFor();
    assert.match(await row.locator(`[data-linked="${dark.id}"]`).textContent(), /Dark mode please.*Planned/);
    assert.match(await row.locator(`[data-linked="${crash.id}"]`).textContent(), /Crash when exporting.*New/);
    const { data: [saved] } = await api('GET', `/v1/changelog/dashboard/${project.id}`, { token, expect: 200 });
    assert.deepEqual([...saved.feedback_ids].sort(), [dark.id, crash.id].sort());

    await row.locator('[data-action="toggle-publish"]').click();
    await waitForText(page, `[data-linked="${dark.id}"] .badge.status-shipped`, 'Shipped');
    await waitForText(page, `[data-linked="${crash.id}"] .badge.status-done`, 'Done');
    const { data: entries } = await api('GET', `/v1/feedback?project_id=${project.id}`, { token, expect: 200 });
    const status = Object.fromEntries(entries.map((e) => [e.id, e.status]));
    assert.equal(status[dark.id], 'shipped');
    assert.equal(status[crash.id], 'done');
    await shot(page, 'changelog-shipped');

    assert.deepEqual(problems, [], 'no console errors');
  } finally {
    await ctx.close();
  }
});
