// Headless Chromium tests of feedback's team features: boards (the dashboard's switcher and manager,
// the public pages' switcher), tags, and the customer value behind requests. Run through
// tests/browser/run.sh, or set SHIPMATE_API_URL and run `node --test`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createHmac } from 'node:crypto';

import { API, SHOTS, useBrowser, api, heading, openOwnerPage } from './support.mjs';

const browser = useBrowser();
const ownerPage = (label, section) => openOwnerPage(browser(), label, section);

async function shot(page, name) {
  await page.evaluate(() => { const t = document.querySelector('#status'); if (t) t.textContent = ''; });
  await page.screenshot({ path: path.join(SHOTS, `dashboard-${name}.png`), fullPage: true });
}

test('an admin makes boards, moves an entry and filters by board; the public page shows public boards only', { timeout: 120_000 }, async () => {
  const { slug, token, project, key, ctx, page, problems } = await ownerPage('boards', 'feedback');
  try {
    const sso = await api('POST', '/v1/feedback', { key, body: { title: 'Single sign-on', type: 'feature' }, expect: 201 });
    await api('POST', '/v1/feedback', { key, body: { title: 'Dark mode', type: 'feature' }, expect: 201 });
    await page.reload();
    await heading(page, 'Feedback');
    await page.click('#board-manager summary');
    await page.fill('#board-name', 'Team only');
    assert.equal(await page.inputValue('#board-slug'), 'team-only', 'the slug follows the name');
    await page.selectOption('#board-visibility', 'private');
    await page.click('#board-form button[type="submit"]');
    await page.locator('#board-list [data-board="team-only"]').waitFor();
    await page.fill('#board-name', 'Enterprise');
    await page.selectOption('#board-visibility', 'segment');
    await page.fill('#board-segment', 'plan=enterprise, seats=50');
    await page.click('#board-form button[type="submit"]');
    await page.locator('#board-list [data-board="enterprise"]', { hasText: 'plan=enterprise, seats=50' }).waitFor();
    const boards = (await api('GET', `/v1/projects/${project.id}/boards`, { token, expect: 200 })).data;
    assert.deepEqual(boards.find((b) => b.slug === 'enterprise').segment, { plan: 'enterprise', seats: 50 });
    // A segment board without a segment is refused beside the form.
    await page.fill('#board-name', 'Broken');
    await page.selectOption('#board-visibility', 'segment');
    await page.click('#board-form button[type="submit"]');
    await page.locator('#board-form .field-error, #board-form [aria-invalid="true"]').first().waitFor();

    const item = page.locator(`li[data-feedback="${sso.id}"]`);
    await item.locator('[data-action="move"]').selectOption('team-only');
    await page.locator('#status', { hasText: /moved to Team only/ }).waitFor();
    const moved = (await api('GET', `/v1/feedback?project_id=${project.id}&board=team-only`, { token, expect: 200 })).data;
    assert.deepEqual(moved.map((e) => e.id), [sso.id]);
    await page.selectOption('#fb-filter-board', 'team-only');
    await page.waitForFunction(() => document.querySelectorAll('#feedback-list [data-feedback]').length === 1);
    assert.match(await page.locator('#feedback-count').textContent(), /^1 entry/);
    await shot(page, 'feedback-boards');

    // The public pages: a visitor sees the public board only, and the private board's page is 404.
    const visitor = await browser().newContext();
    try {
      const pub = await visitor.newPage();
      await pub.goto(`${API}/f/${slug}`);
      assert.ok(await pub.locator('text=Dark mode').isVisible());
      assert.equal(await pub.locator('text=Single sign-on').count(), 0);
      assert.equal(await pub.locator('nav.boards').count(), 0, 'one visible board: no switcher');
      const res = await pub.goto(`${API}/f/${slug}/b/team-only`);
      assert.equal(res.status(), 404);
    } finally {
      await visitor.close();
    }
    // The owner (signed in) has the switcher and the private board's page.
    await page.goto(`${API}/f/${slug}/b/team-only`);
    await page.locator('nav.boards a[aria-current="page"]', { hasText: 'Team only' }).waitFor();
    assert.ok(await page.locator('text=Single sign-on').isVisible());
    assert.equal(await page.locator('#feedback-form').getAttribute('data-board'), 'team-only');
    await page.screenshot({ path: path.join(SHOTS, 'board-switcher.png'), fullPage: true });
    // The refused segment board is the one failed request Chromium reports.
    assert.deepEqual(problems.filter((p) => !/status of 422/.test(p)), [], 'no console errors');
  } finally {
    await ctx.close();
  }
});

test('an owner makes tags, tags entries and filters the list by tag', { timeout: 90_000 }, async () => {
  const { token, project, key, ctx, page, problems } = await ownerPage('tags', 'feedback');
  try {
    const dark = await api('POST', '/v1/feedback', { key, body: { title: 'Dark mode please', type: 'feature' }, expect: 201 });
    await api('POST', '/v1/feedback', { key, body: { title: 'Invoices as PDF', type: 'feature' }, expect: 201 });
    await page.reload();
    await heading(page, 'Feedback');
    await page.click('#tag-manager summary');
    await page.fill('#tag-name', 'Mobile');
    await page.fill('#tag-color', '#ff8800');
    await page.click('#tag-form button[type="submit"]');
    await page.locator('#tag-list [data-tag]', { hasText: 'Mobile' }).waitFor();
    // A second tag of the same name (whatever the case) is refused, beside the form.
    await page.fill('#tag-name', 'mobile');
    await page.click('#tag-form button[type="submit"]');
    await page.locator('#tag-form .form-err', { hasText: /tag of this name/ }).waitFor();
    const [tag] = (await api('GET', `/v1/projects/${project.id}/tags`, { token, expect: 200 })).data;
    assert.equal(tag.color, '#ff8800');

    const item = page.locator(`li[data-feedback="${dark.id}"]`);
    await item.locator('[data-action="tags"]').click();
    await item.locator(`#fb-tags-${dark.id} input[value="${tag.id}"]`).check();
    await item.locator('button:text("Save tags")').click();
    await item.locator('[data-entry-tags] [data-tag]', { hasText: 'Mobile' }).waitFor();
    assert.equal(await item.locator('[data-entry-tags] [data-tag]').evaluate((el) => getComputedStyle(el).getPropertyValue('--tag').trim()), '#ff8800');

    await page.selectOption('#fb-filter-tag', tag.id);
    await page.waitForFunction(() => document.querySelectorAll('#feedback-list [data-feedback]').length === 1);
    assert.match(await page.locator('#feedback-count').textContent(), /^1 entry/);
    await shot(page, 'feedback-tags');
    // The refused duplicate is the one failed request Chromium reports.
    assert.deepEqual(problems.filter((p) => !/status of 409/.test(p)), [], 'no console errors');
  } finally {
    await ctx.close();
  }
});

test('the team sees the customer value behind requests, sorts by MRR and lists the voters', { timeout: 90_000 }, async () => {
  const { token, project, key, ctx, page, problems } = await ownerPage('value', 'feedback');
  try {
    const { identify_secret: secret } = await api('POST', `/v1/projects/${project.id}/identify-secret/rotate`, { token, expect: 200 });
    const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const customer = async (sub, company) => {
      const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub, name: sub, email: `${sub}@example.com`, exp: Math.floor(Date.now() / 1000) + 600, company })}`;
      const jwt = `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
      return (await api('POST', '/v1/auth/identify', { key: project.publishable_key, body: { token: jwt }, expect: 200 })).token;
    };
    const sso = await api('POST', '/v1/feedback', { key, body: { title: 'Single sign-on', type: 'feature' }, expect: 201 });
    const dark = await api('POST', '/v1/feedback', { key, body: { title: 'Dark mode', type: 'feature' }, expect: 201 });
    const ann = await customer('ann', { id: 'acme', name: 'Acme', mrr: 4800, plan: 'enterprise' });
    const bob = await customer('bob', { id: 'init', name: 'Initech', mrr: 300, plan: 'starter' });
    await api('POST', `/v1/feedback/${sso.id}/upvote`, { token: ann, body: { importance: 'must_have' }, expect: 200 });
    await api('POST', `/v1/feedback/${dark.id}/upvote`, { token: bob, body: { importance: 'important' }, expect: 200 });
    await api('POST', `/v1/feedback/${dark.id}/upvote`, { token: ann, expect: 200 });
    await page.reload();
    await heading(page, 'Feedback');
    await page.selectOption('#fb-filter-sort', 'mrr');
    await page.waitForFunction(() => document.querySelector('#feedback-list [data-feedback] .record-title')?.textContent === 'Dark mode');
    const first = page.locator(`li[data-feedback="${dark.id}"]`);
    assert.match(await first.locator('[data-mrr]').textContent(), /5,100 MRR/);
    assert.match(await first.locator('[data-companies]').textContent(), /Acme, Initech/);
    await first.locator('[data-action="voters"]').click();
    await first.locator('[data-voter]').nth(1).waitFor();
    assert.match(await first.locator('.voters-panel').textContent(), /bob@example\.com.*Initech.*starter.*300.*Important/s);
    await shot(page, 'feedback-value');
    assert.deepEqual(problems, [], 'no console errors');
  } finally {
    await ctx.close();
  }
});
