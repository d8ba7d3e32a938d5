// Headless Chromium tests of outbound delivery in the dashboard: the Webhooks section (an endpoint added, a
// test ping delivered to a local receiver and verified with the SDK, payloads, secret rotation, a failed
// delivery retried), its absence for members, the account page's notification toggles, the "email is not
// configured" notices and the changelog's subscriber count. Run through tests/browser/run.sh: the stack must
// allow 127.0.0.1 as a webhook host and use a short retry schedule (tests/stack.sh sets both).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import http from 'node:http';
import { createHmac, randomBytes } from 'node:crypto';

import { API, SHOTS, PHONE, useBrowser, api, login, setup } from './support.mjs';
import { verifyWebhook } from '../../sdk/js/dist/index.js';

const DESKTOP = { width: 1280, height: 800 };
const EMAIL_OFF = 'Email is not configured: set SHIPMATE_SMTP_URL and SHIPMATE_MAIL_FROM';
const browser = useBrowser();

async function shot(page, name) {
  await page.evaluate(() => { const t = document.querySelector('#status'); if (t) t.textContent = ''; });
  await page.screenshot({ path: path.join(SHOTS, `delivery-${name}.png`), fullPage: true });
}

/** A signed-in page (the session cookie of `token`) that records script errors and CSP violations. */
async function signedIn(token, viewport = DESKTOP) {
  const ctx = await browser().newContext({ viewport });
  ctx.setDefaultTimeout(15_000);
  await ctx.addCookies([{ name: 'shipmate_session', value: token, url: API }]);
  const page = await ctx.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  return { ctx, page, problems };
}

const heading = (page, name) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();

/** A local webhook receiver: records each request (raw body, headers) and answers `status` (settable). */
async function receiver() {
  const got = [];
  const rx = { status: 200, got };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      got.push({ body: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(rx.status, { 'Content-Type': 'text/plain' }).end(rx.status < 300 ? 'ok' : 'nope');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  rx.url = `http://127.0.0.1:${server.address().port}/hooks/shipmate`;
  rx.close = () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); });
  return rx;
}

test('an owner adds a webhook, pings it, reads the payload, rotates the secret and retries a failure', { timeout: 180_000 }, async () => {
  const s = await setup('hooks');
  const rx = await receiver();
  const { ctx, page, problems } = await signedIn(s.token);
  try {
    await page.goto(`${API}/dashboard/p/${s.project.id}/feedback`);
    await heading(page, 'Feedback');
    await page.click('#sidenav a[href$="/webhooks"]');
    await heading(page, 'Webhooks');
    await page.locator('#no-webhooks').waitFor();

    // The event checkboxes come from GET /v1/webhooks/events; "All events" is on by default.
    const { data: names } = await api('GET', '/v1/webhooks/events', { token: s.token, expect: 200 });
    assert.ok(names.includes('feedback.created') && !names.includes('*') && !names.includes('ping'));
    await page.locator('#webhook-form [data-event]').first().waitFor();
    assert.deepEqual(await page.locator('#webhook-form [data-event]').evaluateAll((els) => els.map((e) => e.value)), names);
    assert.ok(await page.isChecked('#webhook-form-ev-all'));
    assert.ok(await page.isDisabled('#webhook-form [data-event="feedback.created"]'));

    // A private address is refused beside the URL field, with the API's detail.
    await page.fill('#webhook-form-url', 'http://10.1.2.3/hook');
    await page.click('#webhook-form button[type="submit"]');
    await page.locator('#webhook-form-url-err').waitFor({ state: 'visible' });
    assert.match(await page.locator('#webhook-form-url-err').textContent(), /private|loopback/i);
    assert.equal(await page.getAttribute('#webhook-form-url', 'aria-invalid'), 'true');
    // No event chosen: said before anything is sent.
    await page.uncheck('#webhook-form-ev-all');
    await page.click('#webhook-form button[type="submit"]');
    assert.match(await page.locator('#webhook-form-events-err').textContent(), /at least one event/i);
    await shot(page, 'webhooks-errors');

    await page.fill('#webhook-form-url', rx.url);
    await page.fill('#webhook-form-description', 'Build <server> & "friends"');
    await page.check('#webhook-form [data-event="feedback.created"]');
    await page.check('#webhook-form [data-event="testimonial.approved"]');
    await page.click('#webhook-form button[type="submit"]');
    await heading(page, 'Webhook endpoint');
    assert.equal((await page.locator('#webhook-url').textContent()).trim(), rx.url);
    // User content is text, never markup.
    assert.equal((await page.locator('#webhook-description').textContent()).trim(), 'Build <server> & "friends"');
    assert.deepEqual(await page.locator('#webhook-events .badge').allTextContents(), ['feedback.created', 'testimonial.approved']);
    const hookId = decodeURIComponent(page.url().split('/').pop());
    const stored = await api('GET', `/v1/projects/${s.project.id}/webhooks/${hookId}`, { token: s.token, expect: 200 });
    assert.deepEqual(stored.events, ['feedback.created', 'testimonial.approved']);

    // The secret is masked until revealed.
    assert.equal(await page.getAttribute('#webhook-secret', 'type'), 'password');
    await page.click('#reveal-secret');
    assert.equal(await page.getAttribute('#webhook-secret', 'type'), 'text');
    assert.equal(await page.inputValue('#webhook-secret'), stored.secret);
    assert.match(stored.secret, /^whsec_/);

    // Send test: the ping shows as delivered, and the receiver got a request the SDK verifies.
    await page.locator('#no-deliveries').waitFor();
    await page.click('#send-test');
    const ping = page.locator('#delivery-table tr[data-delivery][data-status="delivered"]', { hasText: 'ping' });
    await ping.waitFor({ timeout: 30_000 });
    assert.equal(rx.got.length, 1);
    const event = await verifyWebhook(rx.got[0].body, rx.got[0].headers, stored.secret);
    assert.equal(event.type, 'ping');
    assert.match(await ping.textContent(), /HTTP 200/);
    await ping.locator('[data-payload-toggle]').click();
    const payload = page.locator('#delivery-table pre.payload').first();
    await payload.waitFor({ state: 'visible' });
    assert.equal(JSON.parse(await payload.textContent()).type, 'ping');
    assert.equal(await ping.locator('[data-payload-toggle]').getAttribute('aria-expanded'), 'true');
    await shot(page, 'webhook-ping');

    // A subscribed event arrives too (feedback submitted with the project key).
    await api('POST', '/v1/feedback', { key: s.key, body: { title: 'Webhooks please', type: 'feature' }, expect: 201 });
    const deadline = Date.now() + 30_000;
    while (!(await page.locator('#delivery-table tr[data-status="delivered"]', { hasText: 'feedback.created' }).count())) {
      assert.ok(Date.now() < deadline, 'feedback.created delivered within 30 s');
      await page.waitForTimeout(500);
      await page.click('#refresh-deliveries');
    }
    const created = await verifyWebhook(rx.got.at(-1).body, rx.got.at(-1).headers, stored.secret);
    assert.equal(created.type, 'feedback.created');
    assert.equal(created.data.title, 'Webhooks please');

    // Rotation: a new secret, shown at once (still revealed), and the API agrees.
    await page.click('#rotate-secret');
    await page.click('#confirm-ok');
    await page.waitForFunction((old) => document.querySelector('#webhook-secret').value !== old, stored.secret);
    const rotated = await api('GET', `/v1/projects/${s.project.id}/webhooks/${hookId}`, { token: s.token, expect: 200 });
    assert.equal(await page.inputValue('#webhook-secret'), rotated.secret);
    assert.equal(await page.getAttribute('#webhook-secret', 'type'), 'text');

    // A receiver that fails: the delivery ends `failed` (schedule 1,1: three attempts), then Retry succeeds.
    rx.status = 500;
    await page.click('#send-test');
    const failed = page.locator('#delivery-table tr[data-status="failed"]');
    await failed.waitFor({ timeout: 60_000 });
    assert.match(await failed.textContent(), /HTTP 500/);
    const attempts = Number((await failed.locator('[data-attempts]').textContent()).trim());
    assert.ok(attempts >= 2, `retried before failing (${attempts} attempts)`);
    await shot(page, 'webhook-failed');
    rx.status = 200;
    await failed.locator('[data-retry]').click();
    const retried = page.locator('#delivery-table tbody.delivery:first-of-type tr[data-delivery]');
    await page.waitForFunction(() => document.querySelector('#delivery-table tbody.delivery tr[data-delivery]').getAttribute('data-status') === 'delivered', null, { timeout: 30_000 });
    assert.equal(Number((await retried.locator('[data-attempts]').textContent()).trim()), attempts + 1);
    const again = await verifyWebhook(rx.got.at(-1).body, rx.got.at(-1).headers, rotated.secret);
    assert.equal(again.type, 'ping');

    // Disable and enable.
    await page.click('#toggle-webhook');
    await page.click('#confirm-ok');
    await page.waitForFunction(() => document.querySelector('#webhook-status').textContent.trim() === 'Disabled');
    assert.equal((await api('GET', `/v1/projects/${s.project.id}/webhooks/${hookId}`, { token: s.token, expect: 200 })).enabled, false);
    assert.ok(await page.isDisabled('#send-test'), 'no test to a disabled endpoint');
    await page.click('#toggle-webhook');
    await page.waitForFunction(() => document.querySelector('#webhook-status').textContent.trim() === 'Enabled');

    // The list shows it; deleting it (confirmed) empties the list.
    await page.click('a:text("All webhooks")');
    await heading(page, 'Webhooks');
    await page.locator(`#webhook-table tr[data-webhook="${hookId}"]`, { hasText: rx.url }).waitFor();
    await shot(page, 'webhooks-list');
    await page.setViewportSize(PHONE);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the webhooks page scrolls sideways by ${overflow}px on a phone`);
    await page.setViewportSize(DESKTOP);
    await page.click(`#webhook-table tr[data-webhook="${hookId}"] a`);
    await heading(page, 'Webhook endpoint');
    await page.click('#delete-webhook');
    await page.click('#confirm-ok');
    await heading(page, 'Webhooks');
    await page.locator('#no-webhooks').waitFor();
    await api('GET', `/v1/projects/${s.project.id}/webhooks/${hookId}`, { token: s.token, expect: 404 });
    assert.ok(await page.locator('#banner').isHidden(), 'no error banner');
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
    await rx.close();
  }
});

test('an owner adds a Slack endpoint: the ping arrives as a Slack message with a link', { timeout: 90_000 }, async () => {
  const s = await setup('hooks-slack');
  const rx = await receiver();
  const { ctx, page, problems } = await signedIn(s.token);
  try {
    await page.goto(`${API}/dashboard/p/${s.project.id}/webhooks`);
    await heading(page, 'Webhooks');
    await page.locator('#webhook-form [data-event]').first().waitFor();
    assert.equal(await page.inputValue('#webhook-form-format'), 'standard');
    await page.fill('#webhook-form-url', rx.url);
    await page.selectOption('#webhook-form-format', 'slack');
    await page.click('#webhook-form button[type="submit"]');
    await heading(page, 'Webhook endpoint');
    assert.equal((await page.locator('#webhook-format').textContent()).trim(), 'Slack message');
    await page.click('#send-test');
    await page.locator('#delivery-table tr[data-delivery][data-status="delivered"]', { hasText: 'ping' }).waitFor({ timeout: 30_000 });
    const body = JSON.parse(rx.got[0].body.toString());
    assert.match(body.text, /this webhook works <http:\/\/127\.0\.0\.1:\d+\/dashboard\/p\/[^/]+\/webhooks\|Webhooks>$/);
    assert.equal(body.blocks[0].text.type, 'mrkdwn');
    assert.equal(rx.got[0].headers['webhook-signature'], undefined, 'a chat message is not signed');
    await shot(page, 'webhook-slack');
    await page.click('a:text("All webhooks")');
    await heading(page, 'Webhooks');
    assert.equal((await page.locator('#webhook-table [data-format]').textContent()).trim(), 'Slack message');
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
    await rx.close();
  }
});

test('an owner links an entry to a GitHub issue, connects GitHub, and closing the issue ships the entry', { timeout: 90_000 }, async () => {
  const s = await setup('github');
  const entry = await api('POST', '/v1/feedback', { key: s.key, body: { title: 'Dark mode', type: 'feature' }, expect: 201 });
  const { ctx, page, problems } = await signedIn(s.token);
  try {
    await page.goto(`${API}/dashboard/p/${s.project.id}/feedback`);
    await heading(page, 'Feedback');
    const item = page.locator(`li[data-feedback="${entry.id}"]`);
    await item.locator('[data-action="links"]').click();
    const box = item.locator(`#fb-links-${entry.id}`);
    await box.fill('https://gitlab.com/acme/app/-/issues/3');
    await item.locator('button:text("Save links")').click();
    await item.locator(`#fb-links-${entry.id}-err`).waitFor({ state: 'visible' });
    assert.match(await item.locator(`#fb-links-${entry.id}-err`).textContent(), /GitHub issue URLs/);
    await box.fill('https://github.com/Acme/App/issues/3');
    await item.locator('button:text("Save links")').click();
    await item.locator('[data-links] a', { hasText: 'acme/app#3' }).waitFor();
    await shot(page, 'github-links');

    await page.click('#sidenav a[href$="/webhooks"]');
    await heading(page, 'Webhooks');
    await page.locator('#github-status', { hasText: 'Not connected' }).waitFor();
    await page.click('#github-connect');
    const secret = (await page.locator('#github-secret').textContent()).trim();
    const url = (await page.locator('#github-url').textContent()).trim();
    assert.equal((await page.locator('#github-status').textContent()).trim(), 'Connected');
    await page.evaluate(() => { document.querySelector('#github-secret').textContent = 'the secret, shown once'; });
    await shot(page, 'github-connected');

    // GitHub closes the issue as completed: the entry ships.
    const body = JSON.stringify({ action: 'closed', issue: { html_url: 'https://github.com/Acme/App/issues/3', number: 3, state: 'closed', state_reason: 'completed' }, repository: { full_name: 'Acme/App' }, sender: { login: 'octocat' } });
    const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-github-event': 'issues', 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` } });
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).moved, [entry.id]);
    await page.click('#sidenav a[href$="/feedback"]');
    await heading(page, 'Feedback');
    await page.locator(`li[data-feedback="${entry.id}"] [data-status-badge]`, { hasText: 'Shipped' }).waitFor();
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
  }
});

test('a member gets no Webhooks section, and the page says why', { timeout: 60_000 }, async () => {
  const s = await setup('hooks-member');
  const memberEmail = `member-${s.slug}@example.com`;
  const invite = await api('POST', `/v1/projects/${s.project.id}/invites`, { token: s.token, body: { email: memberEmail, role: 'member' }, expect: 201 });
  const memberToken = await login(memberEmail, 'Mo Member');
  await api('POST', `/v1/invites/${invite.url.split('/invite/')[1]}/accept`, { token: memberToken, expect: 200 });
  await api('GET', `/v1/projects/${s.project.id}/webhooks`, { token: memberToken, expect: 403 });

  const { ctx, page, problems } = await signedIn(memberToken);
  try {
    await page.goto(`${API}/dashboard/p/${s.project.id}/feedback`);
    await heading(page, 'Feedback');
    assert.equal(await page.locator('#sidenav a[href$="/webhooks"]').count(), 0);
    assert.ok(await page.locator('#sidenav a[href$="/members"]').isVisible());
    await page.goto(`${API}/dashboard/p/${s.project.id}/webhooks`);
    await heading(page, 'Webhooks');
    assert.match(await page.locator('#webhooks-forbidden').textContent(), /only owners and admins/i);
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
  }
});

test('notification toggles persist, and every place that would email says email is off', { timeout: 90_000 }, async () => {
  const s = await setup('notify');
  const before = await api('GET', `/v1/projects/${s.project.id}/notifications`, { token: s.token, expect: 200 });
  assert.deepEqual(before, { new_feedback: true, new_testimonial: true, weekly_report: false, analytics_alerts: false, email_configured: false }, 'owners are notified by default; the weekly report and alerts are opt-in');

  const { ctx, page, problems } = await signedIn(s.token);
  try {
    await page.goto(`${API}/dashboard/account`);
    await heading(page, 'Account');
    const item = page.locator(`#notify-list [data-notify-project="${s.project.id}"]`);
    await item.waitFor();
    assert.ok(await item.locator('[data-setting="new_feedback"]').isChecked());
    assert.ok(await item.locator('[data-setting="new_testimonial"]').isChecked());
    assert.equal(await item.locator('[data-setting="weekly_report"]').isChecked(), false);
    assert.equal(await item.locator('[data-setting="analytics_alerts"]').isChecked(), false);
    assert.match(await page.locator('#notify-email-off').textContent(), new RegExp(EMAIL_OFF));

    await item.locator('[data-setting="new_feedback"]').uncheck();
    await page.waitForFunction(() => /emails off/.test(document.querySelector('#status').textContent));
    assert.equal((await api('GET', `/v1/projects/${s.project.id}/notifications`, { token: s.token, expect: 200 })).new_feedback, false);
    await shot(page, 'notifications');

    await page.reload();
    await heading(page, 'Account');
    await item.waitFor();
    assert.equal(await item.locator('[data-setting="new_feedback"]').isChecked(), false, 'still off after a reload');
    assert.ok(await item.locator('[data-setting="new_testimonial"]').isChecked());
    await item.locator('[data-setting="new_feedback"]').check();
    await page.waitForFunction(() => /emails on/.test(document.querySelector('#status').textContent));
    await item.locator('[data-setting="new_testimonial"]').uncheck();
    await page.waitForFunction(() => /New testimonials.*emails off/.test(document.querySelector('#status').textContent));
    const after = await api('GET', `/v1/projects/${s.project.id}/notifications`, { token: s.token, expect: 200 });
    assert.deepEqual([after.new_feedback, after.new_testimonial], [true, false]);

    // Members: where invitation links are made, the notice says they are not emailed.
    await page.goto(`${API}/dashboard/p/${s.project.id}/members`);
    await heading(page, 'Members');
    await page.locator('#invite-email-off').waitFor();
    assert.match(await page.locator('#invite-email-off').textContent(), new RegExp(EMAIL_OFF));
    await page.fill('#invite-email', `someone-${s.slug}@example.com`);
    await page.click('#invite-form button[type="submit"]');
    await page.locator('#invite-url').waitFor();
    assert.match(await page.locator('#invite-url-hint').textContent(), /not emailed/);

    // Changelog: the subscriber count, pending ones included.
    await api('POST', `/v1/changelog/by-project/${s.slug}/subscribe`, { body: { email: `reader-${s.slug}@example.com` }, expect: 202 });
    const counts = await api('GET', `/v1/projects/${s.project.id}/changelog/subscribers`, { token: s.token, expect: 200 });
    await page.click('#sidenav a[href$="/changelog"]');
    await heading(page, 'Changelog');
    await page.locator('#subscriber-count').waitFor();
    assert.equal((await page.locator('#subscriber-confirmed').textContent()).trim(), `${counts.confirmed} subscriber${counts.confirmed === 1 ? '' : 's'}`);
    if (counts.pending) assert.match(await page.locator('#subscriber-pending').textContent(), new RegExp(`${counts.pending} awaiting confirmation`));
    await shot(page, 'changelog-subscribers');
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
  }
});
