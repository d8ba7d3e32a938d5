// Headless Chromium tests of the dashboard's knowledge base views against a running shipmate-api
// and shipmate-worker: the search playground (modes, metadata filter), file upload and the
// document page with its chunks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

import path from 'node:path';

import { API, SHOTS, useBrowser, api, setup } from './support.mjs';

const browser = useBrowser();

async function signedInPage(token) {
  const ctx = await browser().newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  ctx.setDefaultTimeout(15_000);
  await ctx.addCookies([{ name: 'shipmate_session', value: token, url: API }]);
  const page = await ctx.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text()); });
  return { ctx, page, problems };
}

/** Polls `read()` until it equals `want` (deadline 30 s). */
async function until(what, read, want, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  let got;
  for (;;) {
    got = await read();
    if (got === want) return;
    if (Date.now() > deadline) assert.fail(`${what}: expected ${want}, got ${got}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const text = (page, sel) => page.locator(sel).first().textContent().then((t) => (t || '').trim(), () => '');

test('the search playground finds keyword tokens and filters by metadata; files upload and documents open on their page', { timeout: 180_000 }, async () => {
  const { token, project, key } = await setup('kbui');
  const index = await api('POST', '/v1/indexes', { key, body: { name: 'Support', embedding_model: 'all-minilm-l6-v2' }, expect: 201 });
  const en = await api('POST', `/v1/indexes/${index.id}/documents`, { key, expect: 201, body: {
    content: 'Troubleshooting uploads. When the importer stops with code ZX-4711 the file is larger than the quota; split it and try again.',
    metadata: { lang: 'en' },
  } });
  const de = await api('POST', `/v1/indexes/${index.id}/documents`, { key, expect: 201, body: {
    content: 'Hochladen von Dateien. Wenn der Import abbricht, ist die Datei zu groß; teilen Sie sie und versuchen Sie es erneut.',
    metadata: { lang: 'de' },
  } });
  await until('documents ready', async () => {
    const { data } = await api('GET', `/v1/indexes/${index.id}/documents`, { key, expect: 200 });
    return data.filter((d) => d.status === 'ready').length;
  }, 2, 90_000);

  const { ctx, page, problems } = await signedInPage(token);
  try {
    await page.goto(`${API}/dashboard/p/${project.id}/knowledge/${index.id}`);
    await page.getByRole('heading', { level: 1, name: 'Support' }).waitFor();

    // Keyword mode finds the exact token, with the chunk's index.
    await page.fill('#search-query', 'ZX-4711');
    await page.selectOption('#search-mode', 'keyword');
    await page.click('#search-form button[type="submit"]');
    await page.locator('#search-results .result').first().waitFor();
    assert.equal(await page.locator('#search-results .result').count(), 1, 'only the document holding the token');
    assert.match(await text(page, '#search-results .result-text'), /ZX-4711/);
    assert.equal(await page.getAttribute('#search-results [data-chunk-index]', 'data-chunk-index'), '0');

    // A metadata filter keeps only the German document, whatever the query means.
    await page.selectOption('#search-mode', 'vector');
    await page.fill('#search-query', 'the import stopped, file too large');
    await page.click('#add-filter');
    await page.fill('#search-filter-rows .filter-key', 'lang');
    await page.fill('#search-filter-rows .filter-value', 'de');
    await page.click('#search-form button[type="submit"]');
    await page.waitForFunction((id) => {
      const links = [...document.querySelectorAll('#search-results .result-head a')];
      return links.length > 0 && links.every((a) => a.href.endsWith(`/${id}`));
    }, de.id);

    // The result links to the document's page: its status, metadata, chunk count and chunks.
    await page.click('#search-results .result-head a');
    await page.locator('#document-facts [data-external-id]').waitFor();
    assert.equal(await text(page, '[data-chunk-count]'), String(de.chunks_created));
    assert.equal(await text(page, '#document-facts [data-doc-status]'), 'ready');
    assert.match(await text(page, '#document-facts pre.json'), /"lang": "de"/);
    await page.locator('#chunk-list li').first().waitFor();
    assert.equal(await page.locator('#chunk-list li').count(), de.chunks_created);
    assert.match(await text(page, '#chunk-list .result-text'), /Hochladen von Dateien/);

    // File upload: an HTML file becomes a document; an image is refused with a clear message.
    await page.goto(`${API}/dashboard/p/${project.id}/knowledge/${index.id}`);
    await page.locator('#document-table').waitFor();
    await page.setInputFiles('#doc-file', { name: 'billing.html', mimeType: 'text/html', buffer: Buffer.from('<html><body><h1>Billing</h1><p>Invoices are sent monthly by email.</p><script>var x=1</script></body></html>') });
    await page.click('#upload-file button[type="submit"]');
    await until('documents listed', () => page.locator('#document-table tbody tr').count(), 3);
    await page.setInputFiles('#doc-file', { name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) });
    await page.click('#upload-file button[type="submit"]');
    await page.waitForFunction(() => /not taken/.test(document.querySelector('[data-err-for="file"]').textContent));
    assert.equal(await page.locator('#document-table tbody tr').count(), 3, 'nothing stored for the refused file');
    const { data } = await api('GET', `/v1/indexes/${index.id}/documents`, { key, expect: 200 });
    assert.equal(data.length, 3);
    assert.ok(en.id && data.some((d) => d.id === en.id));
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('an index\'s search analytics: searches, rates and queries, after searches and a click', { timeout: 120_000 }, async () => {
  const { token, project, key } = await setup('kbstats');
  const index = await api('POST', '/v1/indexes', { key, body: { name: 'Help', embedding_model: 'all-minilm-l6-v2' }, expect: 201 });
  const doc = await api('POST', `/v1/indexes/${index.id}/documents`, { key, expect: 201, body: { content: 'Refunds reach your card within five business days.', metadata: {} } });
  await until('document ready', async () => (await api('GET', `/v1/indexes/${index.id}/documents/${doc.id}`, { key, expect: 200 })).status, 'ready', 90_000);
  const found = await api('POST', `/v1/indexes/${index.id}/search`, { key, body: { query: 'When do I get my refund?' }, expect: 200 });
  await api('POST', `/v1/indexes/${index.id}/searches/${found.search_id}/click`, { key, body: { document_id: doc.id, position: 1 }, expect: 200 });
  await api('POST', `/v1/indexes/${index.id}/search`, { key, body: { query: 'gift cards', mode: 'keyword' }, expect: 200 });

  const { ctx, page, problems } = await signedInPage(token);
  try {
    await page.goto(`${API}/dashboard/p/${project.id}/knowledge/${index.id}`);
    await page.locator('#kb-analytics [data-metric="searches"]').waitFor();
    assert.equal(await text(page, '#kb-analytics [data-metric="searches"]'), '2');
    assert.equal(await text(page, '#kb-analytics [data-metric="no-result-rate"]'), '50.0%');
    assert.equal(await text(page, '#kb-analytics [data-metric="click-through-rate"]'), '50.0%');
    assert.match(await text(page, '#kb-top-queries tbody'), /when do i get my refund\?/);
    assert.match(await text(page, '#kb-no-result tbody'), /gift cards/);
    await page.selectOption('#kb-analytics-period', '7d');
    await page.waitForFunction(() => !document.querySelector('#kb-analytics').hasAttribute('aria-busy'));
    await page.locator('section:has(#kb-analytics)').screenshot({ path: path.join(SHOTS, 'dashboard-kb-analytics.png') });
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('the ask box streams an answer from the index and lists the chunks it cites', { timeout: 120_000 }, async () => {
  const { token, project, key } = await setup('kbask');
  const index = await api('POST', '/v1/indexes', { key, body: { name: 'Help', embedding_model: 'all-minilm-l6-v2' }, expect: 201 });
  const request = await api('POST', '/v1/feedback', { key, expect: 201, body: { title: 'Refunds to PayPal', type: 'feature' } });
  const doc = await api('POST', `/v1/indexes/${index.id}/documents`, { key, expect: 201, body: { content: 'Refunds reach your card within five business days. Gift cards are refunded as store credit.', metadata: { title: 'Refunds' }, feedback_ids: [request.id] } });
  await until('document ready', async () => (await api('GET', `/v1/indexes/${index.id}/documents/${doc.id}`, { key, expect: 200 })).status, 'ready', 90_000);

  const { ctx, page, problems } = await signedInPage(token);
  try {
    await page.goto(`${API}/dashboard/p/${project.id}/knowledge/${index.id}`);
    await page.fill('#ask-question', 'When do I get my refund?');
    await page.click('#ask-form button[type=submit]');
    // The stack's chat API (tests/fake-chat.mjs) quotes source [1]'s first sentence and cites it.
    await page.locator('#ask-citations li.result').first().waitFor();
    assert.equal(await text(page, '#ask-answer'), 'From the knowledge base: Refunds reach your card within five business days. [1].');
    assert.equal(await page.locator('#ask-citations li.result').count(), 1);
    assert.equal(await text(page, '#ask-citations li.result a'), 'Refunds');
    assert.equal(await page.locator('#ask-citations li.result a').getAttribute('href'), `/dashboard/p/${project.id}/knowledge/${index.id}/${doc.id}`);
    // The roadmap in the knowledge base: the request the article is about, with its live status.
    assert.match(await text(page, `#ask-citations [data-feedback-id="${request.id}"]`), /Planned\s*Refunds to PayPal · score 0/);
    await page.locator('section:has(#ask-form)').screenshot({ path: path.join(SHOTS, 'dashboard-kb-ask.png') });

    // An empty question is refused on its field.
    await page.fill('#ask-question', ' ');
    await page.click('#ask-form button[type=submit]');
    await page.locator('#ask-form [data-err-for="question"]:not(:empty)').waitFor();
    assert.equal(await text(page, '#ask-answer'), '');
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});

test('search gaps: what was not found, the closest request, and a request made from a gap', { timeout: 120_000 }, async () => {
  const { token, project, key } = await setup('kbgaps');
  const index = await api('POST', '/v1/indexes', { key, body: { name: 'Help', embedding_model: 'all-minilm-l6-v2' }, expect: 201 });
  const request = await api('POST', '/v1/feedback', { key, expect: 201, body: { title: 'Export invoices to PDF', type: 'feature' } });
  for (const [query, times] of [['export invoices as pdf', 2], ['gift cards', 1]]) {
    for (let i = 0; i < times; i++) await api('POST', `/v1/indexes/${index.id}/search`, { key, body: { query, mode: 'keyword' }, expect: 200 });
  }
  // The worker embeds the request in the background.
  await until('the gap names the request', async () => {
    const gaps = await api('GET', `/v1/projects/${project.id}/insights/search-gaps`, { token, expect: 200 });
    return gaps.data[0]?.similar_feedback?.id || '';
  }, request.id, 60_000);

  const { ctx, page, problems } = await signedInPage(token);
  try {
    await page.goto(`${API}/dashboard/p/${project.id}/knowledge`);
    await page.locator('#kb-gaps-table tbody tr').first().waitFor();
    assert.equal(await page.locator('#kb-gaps-table tbody tr').count(), 2);
    assert.equal(await text(page, '#kb-gaps-table tbody tr:first-child td:first-child'), 'export invoices as pdf');
    assert.match(await text(page, `[data-similar-feedback="${request.id}"]`), /Planned\s*Export invoices to PDF · \d+% similar/);
    assert.equal(await text(page, '[data-gap="gift cards"] td:nth-child(3)'), 'None related');
    await page.locator('section:has(#kb-gaps)').screenshot({ path: path.join(SHOTS, 'dashboard-kb-gaps.png') });
    await page.click('[data-gap-create="gift cards"]');
    await page.locator('[data-gap="gift cards"] [data-gap-created]').waitFor();
    assert.equal(await text(page, '[data-gap="gift cards"] [data-gap-created]'), 'Created \u201cGift cards\u201d');
    const list = await api('GET', `/v1/feedback?project_id=${project.id}`, { token, expect: 200 });
    assert.ok(list.data.some((e) => e.title === 'Gift cards'), 'the request exists');
    assert.deepEqual(problems, []);
  } finally {
    await ctx.close();
  }
});
