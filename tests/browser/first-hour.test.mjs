// Headless Chromium test of the dashboard's part of "The first hour" (contract part 3): the
// "On roadmap" switch of a feedback entry, and a file uploaded in the knowledge base keeping its
// name. Run through tests/browser/run.sh (BROWSER_TESTS=first-hour), with a worker beside the api.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { API, useBrowser, api, setup } from './support.mjs';

const browser = useBrowser();

/** A desktop page signed in as the owner of `s`, on `section` of their project. */
async function ownerPage(s, section) {
  const ctx = await browser().newContext({ viewport: { width: 1280, height: 800 } });
  ctx.setDefaultTimeout(15_000);
  await ctx.addCookies([{ name: 'shipmate_session', value: s.token, url: API, httpOnly: true, sameSite: 'Lax' }]);
  const page = await ctx.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  await page.goto(`${API}/dashboard/p/${s.project.id}/${section}`);
  return { ctx, page, problems };
}

test('a member puts a visitor\'s request on the roadmap with its switch', { timeout: 60_000 }, async () => {
  const s = await setup('fh-road');
  const visitor = await api('POST', `/v1/feedback/by-project/${s.slug}`, { body: { title: 'Offline mode', type: 'feature' }, expect: 201 });
  const other = await api('POST', `/v1/feedback/by-project/${s.slug}`, { body: { title: 'Team spaces', type: 'feature' }, expect: 201 });
  const ours = await api('POST', '/v1/feedback', { key: s.key, body: { title: 'SSO', type: 'feature' }, expect: 201 });
  const bug = await api('POST', '/v1/feedback', { key: s.key, body: { title: 'Crash', type: 'bug' }, expect: 201 });
  assert.deepEqual([visitor.on_roadmap, ours.on_roadmap], [false, true]);
  const { ctx, page, problems } = await ownerPage(s, 'feedback');
  try {
    const box = (e) => page.locator(`[data-feedback="${e.id}"] [data-action="roadmap"]`);
    await box(visitor).waitFor();
    assert.equal(await box(visitor).isChecked(), false);
    assert.equal(await box(ours).isChecked(), true);
    assert.equal(await box(bug).count(), 0, 'bugs are never on the roadmap: no switch');

    const patched = page.waitForResponse((r) => r.url().endsWith(`/v1/feedback/${visitor.id}`) && r.request().method() === 'PATCH');
    await box(visitor).check();
    assert.equal((await patched).status(), 200);
    // A status change accepts the entry too, and its switch says so.
    await page.selectOption(`#fb-status-${other.id}`, 'in_progress');
    await page.waitForFunction((id) => document.querySelector(`[data-feedback="${id}"] [data-action="roadmap"]`).checked, other.id);

    const road = await api('GET', `/v1/feedback/by-project/${s.slug}/roadmap`, { expect: 200 });
    assert.deepEqual(road.planned.map((e) => e.title).sort(), ['Offline mode', 'SSO']);
    assert.deepEqual(road.in_progress.map((e) => e.title), ['Team spaces']);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('a file uploaded in the dashboard keeps its name', { timeout: 120_000 }, async () => {
  const s = await setup('fh-file');
  const index = await api('POST', '/v1/indexes', { key: s.key, body: { name: 'Help', embedding_model: 'all-minilm-l6-v2' }, expect: 201 });
  const { ctx, page, problems } = await ownerPage(s, `knowledge/${index.id}`);
  try {
    await page.getByRole('heading', { level: 1, name: 'Help' }).waitFor();
    await page.setInputFiles('#doc-file', { name: 'setup-guide.md', mimeType: 'text/markdown', buffer: Buffer.from('# Setup\n\nInstall it, then run it.') });
    await page.fill('#file-metadata', '{"source": "dashboard"}');
    await page.click('#upload-file button[type="submit"]');
    await page.locator('#document-table a', { hasText: 'setup-guide.md' }).waitFor();
    const docs = await api('GET', `/v1/indexes/${index.id}/documents`, { key: s.key, expect: 200 });
    assert.deepEqual(docs.data.map((d) => d.metadata), [{ source: 'dashboard', filename: 'setup-guide.md' }]);
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});
