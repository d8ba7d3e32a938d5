// Tests of the JavaScript SDK (sdk/js/dist, the committed build) against a running shipmate-api with dev login
// on and a shipmate-worker beside it. Run through tests/sdk/run.sh, or set SHIPMATE_API_URL and run `node --test`.
// The retry and timeout tests use small local servers and need no API; without SHIPMATE_API_URL the rest are skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHmac, randomBytes } from 'node:crypto';
import { Shipmate, ShipmateError, paginate } from '../../sdk/js/dist/index.js';

const API = process.env.SHIPMATE_API_URL ? process.env.SHIPMATE_API_URL.replace(/\/+$/, '') : '';
const needsApi = API ? {} : { skip: 'SHIPMATE_API_URL is not set' };
const MODEL = 'all-minilm-l6-v2';

/** Calls the API directly (session endpoints the SDK does not cover); fails on any other status than `expect`. */
async function api(method, p, { token, body, expect } = {}) {
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(API + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (expect !== undefined && res.status !== expect) {
    throw new Error(`${method} ${p}: expected ${expect}, got ${res.status}: ${text}`);
  }
  return text ? JSON.parse(text) : null;
}

/** A new owner with a new project (unique slug) and an SDK client on its key. */
async function setup(label) {
  const slug = `sdk-${label}-${randomBytes(4).toString('hex')}`;
  const { token } = await api('POST', '/v1/auth/dev-login', { body: { email: `owner-${slug}@example.com`, name: 'SDK Tester' }, expect: 200 });
  const project = await api('POST', '/v1/projects', { token, body: { name: `SDK ${label}`, slug }, expect: 201 });
  assert.match(project.api_key, /^pk_/);
  const sm = new Shipmate({ apiKey: project.api_key, baseUrl: API });
  return { slug, token, project, sm };
}

/** Polls `documents.get` until the document is `ready` (30 s deadline); fails early if it `failed`. */
async function waitReady(sm, indexId, docId) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const doc = await sm.documents.get(indexId, docId);
    if (doc.status === 'ready') return doc;
    assert.notEqual(doc.status, 'failed', `document ${docId} failed: ${doc.error}`);
    if (Date.now() > deadline) assert.fail(`document ${docId} still ${doc.status} after 30 s (is shipmate-worker running?)`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function withIndex(label, fn) {
  const s = await setup(label);
  const index = await s.sm.indexes.create({ name: 'docs', embedding_model: MODEL });
  return fn(s, index);
}

/** Expects `promise` to reject with a ShipmateError; returns it. */
async function rejects(promise) {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof ShipmateError, `a ShipmateError, got ${e}`);
    assert.ok(e instanceof Error);
    return e;
  }
  assert.fail('expected a rejection');
}

/** A local HTTP server answering with `handler`; returns its base URL and a close function. */
async function localServer(handler) {
  const server = http.createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// Construction (no network)
// ---------------------------------------------------------------------------------------------

test('the client needs an API key and a base URL', () => {
  assert.throws(() => new Shipmate({ baseUrl: 'http://x' }), TypeError);
  assert.throws(() => new Shipmate({ apiKey: 'pk_x' }), TypeError);
  const sm = new Shipmate({ apiKey: 'pk_x', baseUrl: 'http://example.test///' });
  assert.equal(sm.baseUrl, 'http://example.test');
});

// ---------------------------------------------------------------------------------------------
// Feedback, testimonials, changelog
// ---------------------------------------------------------------------------------------------

test('feedback.submit creates an entry', needsApi, async () => {
  const { sm, project } = await setup('fb');
  const entry = await sm.feedback.submit({
    title: 'Dark mode',
    description: 'Easier on the eyes.',
    type: 'feature',
    submitter_email: 'ada@example.com',
  });
  assert.match(entry.id, /^[0-9a-f-]{36}$/);
  assert.equal(entry.project_id, project.id);
  assert.equal(entry.title, 'Dark mode');
  assert.equal(entry.description, 'Easier on the eyes.');
  assert.equal(entry.type, 'feature');
  assert.equal(entry.status, 'planned');
  assert.equal(entry.upvotes, 0);
  assert.equal(entry.downvotes, 0);
  assert.equal(entry.score, 0);
  assert.ok(!Number.isNaN(Date.parse(entry.created_at)));

  const bug = await sm.feedback.submit({ title: 'Crash on export', type: 'bug' });
  assert.equal(bug.status, 'new');
});

test('testimonials.submit creates a pending testimonial', needsApi, async () => {
  const { sm } = await setup('tsub');
  const t = await sm.testimonials.submit({
    author_name: 'Ada Lovelace',
    author_email: 'ada@example.com',
    author_title: 'CTO',
    content: 'Shipmate closed the loop with our users.',
    rating: 5,
    tweet_url: 'https://twitter.com/ada/status/1',
  });
  assert.match(t.id, /^[0-9a-f-]{36}$/);
  assert.equal(t.status, 'pending');
  assert.equal(t.author_name, 'Ada Lovelace');
  assert.equal(t.author_title, 'CTO');
  assert.equal(t.rating, 5);
  assert.equal(t.author_email, undefined, 'the key-side answer never carries the email');
});

test('testimonials.list returns approved testimonials only', needsApi, async () => {
  const { sm, token, project } = await setup('tlist');
  assert.deepEqual((await sm.testimonials.list()).data, []);
  const approved = await sm.testimonials.submit({ author_name: 'Grace', author_email: 'grace@example.com', content: 'Great.', rating: 4 });
  await sm.testimonials.submit({ author_name: 'Linus', author_email: 'linus@example.com', content: 'Meh.', rating: 2 });
  await api('PATCH', `/v1/testimonials/${approved.id}?project_id=${project.id}`, { token, body: { status: 'approved' }, expect: 200 });

  const list = await sm.testimonials.list();
  assert.ok(Array.isArray(list.data));
  assert.equal(list.data.length, 1);
  assert.equal(list.data[0].id, approved.id);
  assert.equal(list.data[0].status, 'approved');
  assert.equal(list.data[0].content, 'Great.');
});

test('changelog.list returns published entries, newest first', needsApi, async () => {
  const { sm, token, project } = await setup('chlog');
  const path = `/v1/changelog/dashboard/${project.id}`;
  const first = await api('POST', path, { token, body: { title: 'Dark mode', content: 'It is **here**.', type: 'feature', published: true }, expect: 201 });
  await api('POST', path, { token, body: { title: 'Secret draft', content: 'Soon.', type: 'improvement', published: false }, expect: 201 });
  await new Promise((r) => setTimeout(r, 20));
  const second = await api('POST', path, { token, body: { title: 'Export fixed', content: 'No more blank page.', type: 'fix', published: true }, expect: 201 });

  const list = await sm.changelog.list();
  assert.deepEqual(list.data.map((e) => e.id), [second.id, first.id]);
  const [entry] = list.data;
  assert.equal(entry.title, 'Export fixed');
  assert.equal(entry.type, 'fix');
  assert.equal(entry.published, true);
  assert.ok(entry.published_at);
});

// ---------------------------------------------------------------------------------------------
// Paging and the feedback loop
// ---------------------------------------------------------------------------------------------

test('list methods take a page and answer it with the total; paginate walks them all', needsApi, async () => {
  const { sm, token, project } = await setup('pages');
  const ids = [];
  for (const n of [1, 2, 3, 4, 5]) {
    const e = await api('POST', `/v1/changelog/dashboard/${project.id}`, { token, body: { title: `Release ${n}`, content: 'Notes.', type: 'fix', published: true }, expect: 201 });
    ids.unshift(e.id); // newest first
    await new Promise((r) => setTimeout(r, 10));
  }
  const first = await sm.changelog.list();
  assert.deepEqual([first.page, first.per_page, first.total], [1, 50, 5]);
  const second = await sm.changelog.list({ page: 2, perPage: 2 });
  assert.deepEqual([second.page, second.per_page, second.total], [2, 2, 5]);
  assert.deepEqual(second.data.map((e) => e.id), ids.slice(2, 4));

  const walked = [];
  let pages = 0;
  for await (const e of paginate((q) => { pages += 1; return sm.changelog.list(q); }, { perPage: 2 })) walked.push(e.id);
  assert.deepEqual(walked, ids);
  assert.equal(pages, 3, 'three pages of two for five entries, and no more requests');

  const t = await sm.testimonials.list({ perPage: 10 });
  assert.deepEqual([t.page, t.per_page, t.total, t.data.length], [1, 10, 0, 0]);
});

test('paginate stops at the total or an empty page, and yields a shifted item once', async () => {
  const pages = {
    1: { data: [{ id: 'a' }, { id: 'b' }], page: 1, per_page: 2, total: 5 },
    // An item created meanwhile pushed `b` onto the second page.
    2: { data: [{ id: 'b' }, { id: 'c' }], page: 2, per_page: 2, total: 6 },
    // Entries deleted meanwhile: the total promises more than there is, and an empty page ends it.
    3: { data: [{ id: 'd' }, { id: 'e' }], page: 3, per_page: 2, total: 8 },
    4: { data: [], page: 4, per_page: 2, total: 5 },
  };
  const asked = [];
  const list = async (q) => { asked.push(q); return pages[q.page]; };
  const got = [];
  for await (const item of paginate(list, { perPage: 2 })) got.push(item.id);
  assert.deepEqual(got, ['a', 'b', 'c', 'd', 'e']);
  assert.deepEqual(asked.map((q) => [q.page, q.perPage]), [[1, 2], [2, 2], [3, 2], [4, 2]]);

  // Otherwise the total says when to stop, without asking for a page past it.
  asked.length = 0;
  const fromThree = [];
  for await (const item of paginate(async (q) => { asked.push(q); return { ...pages[q.page], total: 6 }; }, { page: 3, perPage: 2 })) fromThree.push(item.id);
  assert.deepEqual(fromThree, ['d', 'e']);
  assert.deepEqual(asked.map((q) => q.page), [3]);
});

test('the board takes submissions by slug, pages its entries and shows the roadmap', needsApi, async () => {
  const { sm, slug, token } = await setup('board');
  const entry = await sm.board.submitFeedback(slug, { title: 'Dark mode', type: 'feature', submitter_email: 'fan@example.com' });
  assert.equal(entry.moderation, 'approved');
  assert.equal(entry.submitter_email, undefined, 'the public answer never carries the address');
  const bug = await sm.board.submitFeedback(slug, { title: 'Crash on export', type: 'bug' });
  await api('PATCH', `/v1/feedback/${entry.id}`, { token, body: { status: 'in_progress' }, expect: 200 });

  const page = await sm.board.list(slug, { sort: 'new', perPage: 1 });
  assert.deepEqual([page.page, page.per_page, page.total], [1, 1, 2]);
  assert.deepEqual(page.data.map((e) => e.id), [bug.id]);
  const bugs = await sm.board.list(slug, { type: 'bug' });
  assert.deepEqual(bugs.data.map((e) => e.id), [bug.id]);

  const roadmap = await sm.board.roadmap(slug);
  assert.deepEqual(roadmap.in_progress.map((e) => e.id), [entry.id]);
  assert.deepEqual([roadmap.planned, roadmap.shipped], [[], []]);
  const missing = await rejects(sm.board.roadmap(`${slug}-nope`));
  assert.equal(missing.status, 404);
});

test('identify keeps the end user\'s session; vote and comment send it', async () => {
  const seen = [];
  const srv = await localServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      seen.push([req.method, req.url, req.headers['x-project-key'], req.headers.authorization, body]);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(req.url === '/v1/auth/identify'
        ? { token: 'eu_abc', user: { id: 'u1', name: 'Grace' } }
        : { feedback_id: 'f1', upvotes: 1, downvotes: 0, score: 1, user_vote: 1 }));
    });
  });
  try {
    const sm = new Shipmate({ apiKey: 'pk_x', baseUrl: srv.url });
    await assert.rejects(sm.vote('f1'), TypeError, 'no session before identify');
    const who = await sm.identify('jwt.here.sig');
    assert.deepEqual(who, { token: 'eu_abc', user: { id: 'u1', name: 'Grace' } });
    await sm.vote('f1');
    await sm.vote('f1', 'down');
    await sm.vote('f1', 'none');
    await sm.comment('f1', 'Me too');
    assert.deepEqual(seen, [
      ['POST', '/v1/auth/identify', 'pk_x', undefined, '{"token":"jwt.here.sig"}'],
      ['POST', '/v1/feedback/f1/upvote', undefined, 'Bearer eu_abc', ''],
      ['POST', '/v1/feedback/f1/downvote', undefined, 'Bearer eu_abc', ''],
      ['DELETE', '/v1/feedback/f1/vote', undefined, 'Bearer eu_abc', ''],
      ['POST', '/v1/feedback/f1/comments', undefined, 'Bearer eu_abc', '{"body":"Me too"}'],
    ]);
  } finally {
    await srv.close();
  }
});

test('identify, vote and comment as an end user of the project', needsApi, async () => {
  const { slug, token, project, sm } = await setup('identify');
  const { identify_secret: secret } = await api('POST', `/v1/projects/${project.id}/identify-secret/rotate`, { token, expect: 200 });
  const entry = await sm.feedback.submit({ title: 'Dark mode', type: 'feature' });
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'u-7', name: 'Ada', email: 'ada@example.com', exp: Math.floor(Date.now() / 1000) + 600 })}`;
  const jwt = `${head}.${createHmac('sha256', Buffer.from(secret, 'utf8')).update(head).digest('base64url')}`;

  const browser = new Shipmate({ apiKey: project.publishable_key, baseUrl: API });
  const who = await browser.identify(jwt);
  assert.match(who.token, /^eu_/);
  assert.equal(who.user.name, 'Ada');
  assert.deepEqual(await browser.vote(entry.id), { feedback_id: entry.id, upvotes: 1, downvotes: 0, score: 1, user_vote: 1 });
  assert.equal((await browser.vote(entry.id, 'none')).user_vote, 0);
  assert.equal((await browser.vote(entry.id, 'up')).score, 1);
  const c = await browser.comment(entry.id, 'Please!');
  assert.equal(c.body, 'Please!');
  const bad = await rejects(browser.identify(`${jwt}x`));
  assert.equal(bad.code, 'invalid_identity');
  assert.equal((await sm.board.list(slug)).data.find((e) => e.id === entry.id).score, 1);
});

test('a customer\'s company and importance reach the members\' view', needsApi, async () => {
  const { token, project, sm } = await setup('value');
  const { identify_secret: secret } = await api('POST', `/v1/projects/${project.id}/identify-secret/rotate`, { token, expect: 200 });
  const entry = await sm.feedback.submit({ title: 'SSO', type: 'feature' });
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'u-9', name: 'Bea', exp: Math.floor(Date.now() / 1000) + 600, company: { id: 'acme', name: 'Acme', mrr: 1200, plan: 'scale' } })}`;
  const jwt = `${head}.${createHmac('sha256', Buffer.from(secret, 'utf8')).update(head).digest('base64url')}`;
  const customer = new Shipmate({ apiKey: project.publishable_key, baseUrl: API });
  await customer.identify(jwt);
  assert.equal((await customer.vote(entry.id, 'up', 'must_have')).upvotes, 1);
  const member = new Shipmate({ apiKey: project.api_key, baseUrl: API, sessionToken: token });
  const { data: [row] } = await member.feedback.list(project.id, { sort: 'mrr' });
  assert.equal(row.mrr, 1200);
  assert.deepEqual(row.companies, [{ id: 'acme', name: 'Acme', mrr: 1200, plan: 'scale' }]);
  assert.deepEqual(row.importance, { nice_to_have: 0, important: 0, must_have: 1 });
  const { data: voters } = await member.feedback.voters(entry.id);
  assert.equal(voters.length, 1);
  assert.equal(voters[0].company.name, 'Acme');
  assert.equal(voters[0].importance, 'must_have');
});

test('boards: admins make a segment board; only a matching end user sees it through the SDK', needsApi, async () => {
  const { slug, token, project, sm } = await setup('boards');
  const admin = new Shipmate({ apiKey: project.api_key, baseUrl: API, sessionToken: token });
  const ent = await admin.boards.create(project.id, { name: 'Enterprise', slug: 'enterprise', visibility: 'segment', segment: { plan: 'enterprise' } });
  assert.deepEqual(ent.segment, { plan: 'enterprise' });
  assert.deepEqual((await admin.boards.list(project.id)).data.map((b) => b.slug), ['feedback', 'enterprise']);
  const entry = await sm.feedback.submit({ title: 'SAML', type: 'feature', board: 'enterprise' });
  assert.equal(entry.board_id, ent.id);
  const { identify_secret: secret } = await api('POST', `/v1/projects/${project.id}/identify-secret/rotate`, { token, expect: 200 });
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const as = async (sub, plan) => {
    const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub, name: sub, exp: Math.floor(Date.now() / 1000) + 600, attributes: { plan } })}`;
    const client = new Shipmate({ apiKey: project.publishable_key, baseUrl: API });
    await client.identify(`${head}.${createHmac('sha256', Buffer.from(secret, 'utf8')).update(head).digest('base64url')}`);
    return client;
  };
  const inside = await as('e-1', 'enterprise');
  const outside = await as('e-2', 'pro');
  assert.deepEqual((await inside.board.boards(slug)).data.map((b) => b.slug), ['feedback', 'enterprise']);
  assert.deepEqual((await inside.board.list(slug, { board: 'enterprise' })).data.map((e) => e.id), [entry.id]);
  assert.deepEqual((await outside.board.boards(slug)).data.map((b) => b.slug), ['feedback']);
  assert.deepEqual((await outside.board.list(slug)).data, []);
  assert.equal((await rejects(outside.board.list(slug, { board: 'enterprise' }))).status, 404);
  assert.equal((await rejects(outside.comments.list(entry.id))).status, 404);
  const moved = await admin.feedback.move(entry.id, 'feedback');
  assert.equal(moved.board_id, (await admin.boards.list(project.id)).data[0].id);
  assert.deepEqual((await outside.board.list(slug)).data.map((e) => e.id), [entry.id]);
  assert.deepEqual(await admin.boards.delete(project.id, ent.id), { id: ent.id, deleted: true });
});

test('board.similar asks by slug and text, without the key', async () => {
  const seen = [];
  const srv = await localServer((req, res) => {
    seen.push({ url: req.url, key: req.headers['x-project-key'] });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ data: [{ id: 'f1', title: 'Dark mode', type: 'feature', status: 'planned', score: 3, similarity: 0.9 }] }));
  });
  try {
    const sm = new Shipmate({ apiKey: 'pk_x', baseUrl: srv.url });
    const { data } = await sm.board.similar('acme', 'night theme?');
    assert.deepEqual(data.map((e) => [e.id, e.similarity]), [['f1', 0.9]]);
    assert.deepEqual(seen, [{ url: '/v1/feedback/by-project/acme/similar?q=night+theme%3F', key: undefined }]);
  } finally {
    await srv.close();
  }
});

test('board.similar finds the entries closest in meaning once the worker embedded them', needsApi, async () => {
  const { sm, slug } = await setup('similar');
  const dark = await sm.board.submitFeedback(slug, { title: 'Dark mode for the dashboard', type: 'feature' });
  await sm.board.submitFeedback(slug, { title: 'Invoices in PDF', type: 'feature' });
  const deadline = Date.now() + 30_000;
  let found = [];
  while (!found.length) {
    found = (await sm.board.similar(slug, 'a night theme, darker colours')).data;
    if (!found.length) {
      if (Date.now() > deadline) assert.fail('no similar entry within 30 s (is shipmate-worker running?)');
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  assert.equal(found[0].id, dark.id);
  assert.equal(found[0].title, 'Dark mode for the dashboard');
  assert.ok(found[0].similarity > 0 && found[0].similarity <= 1, `similarity ${found[0].similarity}`);
  const empty = await rejects(sm.board.similar(slug, ''));
  assert.equal(empty.status, 422);
});

test('members moderate and merge with a session token', needsApi, async () => {
  const { sm, slug, token, project } = await setup('mod');
  await assert.rejects(sm.feedback.moderate('x', 'spam'), TypeError, 'a session call without a token fails before any request');
  const member = new Shipmate({ apiKey: project.api_key, baseUrl: API, sessionToken: token });
  await api('PATCH', `/v1/projects/${project.id}`, { token, body: { feedback_moderation: true }, expect: 200 });
  const held = await sm.board.submitFeedback(slug, { title: 'Offline mode', type: 'feature' });
  assert.equal(held.moderation, 'pending');
  assert.equal((await sm.board.list(slug)).total, 0, 'a pending entry is not public');
  const approved = await member.feedback.moderate(held.id, 'approved');
  assert.equal(approved.moderation, 'approved');
  assert.equal((await sm.board.list(slug)).total, 1);
  const bad = await rejects(member.feedback.moderate(held.id, 'hidden'));
  assert.equal(bad.status, 422);

  const target = await sm.feedback.submit({ title: 'Work offline', type: 'feature' });
  const voter = await api('POST', '/v1/auth/dev-login', { body: { email: `voter-${slug}@example.com` }, expect: 200 });
  await api('POST', `/v1/feedback/${held.id}/upvote`, { token: voter.token, expect: 200 });
  const merged = await member.feedback.merge(held.id, target.id);
  assert.equal(merged.id, target.id);
  assert.equal(merged.upvotes, 1, 'the vote moved');
  assert.deepEqual((await sm.board.list(slug)).data.map((e) => e.id), [target.id]);
  const self = await rejects(member.feedback.merge(target.id, target.id));
  assert.equal(self.status, 422);
});

test('members tag entries, link them to GitHub issues and connect GitHub', needsApi, async () => {
  const { sm, token, project } = await setup('gh');
  const member = new Shipmate({ apiKey: project.api_key, baseUrl: API, sessionToken: token });
  const entry = await sm.feedback.submit({ title: 'Dark mode', type: 'feature' });
  const linked = await member.feedback.link(entry.id, ['https://github.com/Acme/App/issues/3']);
  assert.deepEqual(linked.links, ['https://github.com/acme/app/issues/3']);
  const bad = await rejects(member.feedback.link(entry.id, ['https://example.com/issues/3']));
  assert.equal(bad.status, 422);
  assert.equal(bad.errors[0].field, 'links');
  const tag = await member.tags.create(project.id, { name: 'Mobile', color: '#FF8800' });
  assert.equal(tag.color, '#ff8800');
  assert.deepEqual((await member.feedback.tag(entry.id, [tag.id])).tags, [tag]);
  assert.deepEqual((await member.tags.list(project.id)).data, [tag]);
  const { slug } = await api('GET', `/v1/projects/${project.id}`, { token, expect: 200 });
  assert.deepEqual((await sm.board.list(slug, { tag: tag.id })).data.map((e) => e.id), [entry.id]);
  assert.deepEqual(await member.tags.delete(project.id, tag.id), { id: tag.id, deleted: true });
  const hook = await member.feedback.connectGitHub(project.id);
  assert.ok(hook.url.endsWith(`/v1/integrations/github/${project.id}`), hook.url);
  assert.match(hook.secret, /^[0-9a-f]{64}$/);
});

test('comments: a member\'s are official, a customer\'s are not; each can be deleted', needsApi, async () => {
  const { sm, slug, token, project } = await setup('cmt');
  const entry = await sm.feedback.submit({ title: 'Dark mode', type: 'feature' });
  const member = new Shipmate({ apiKey: project.api_key, baseUrl: API, sessionToken: token });
  const login = await api('POST', '/v1/auth/dev-login', { body: { email: `customer-${slug}@example.com`, name: 'Cleo' }, expect: 200 });
  const customer = new Shipmate({ apiKey: project.api_key, baseUrl: API, sessionToken: login.token });

  const asked = await customer.comments.add(entry.id, 'Any news?');
  assert.equal(asked.official, false);
  assert.equal(asked.author.name, 'Cleo');
  const answer = await member.comments.add(entry.id, 'Next month.');
  assert.equal(answer.official, true);
  assert.equal(answer.feedback_id, entry.id);
  const { data } = await sm.comments.list(entry.id);
  assert.deepEqual(data.map((c) => [c.body, c.official]), [['Any news?', false], ['Next month.', true]]);

  const refused = await rejects(customer.comments.delete(answer.id));
  assert.equal(refused.status, 403);
  assert.deepEqual(await member.comments.delete(asked.id), { id: asked.id, deleted: true });
  assert.deepEqual((await sm.comments.list(entry.id)).data.map((c) => c.id), [answer.id]);
  const empty = await rejects(member.comments.add(entry.id, ''));
  assert.equal(empty.status, 422);
});

// ---------------------------------------------------------------------------------------------
// Knowledge base
// ---------------------------------------------------------------------------------------------

test('indexes.models lists the catalogue and the local model', needsApi, async () => {
  const { sm } = await setup('models');
  const { data } = await sm.indexes.models();
  assert.ok(data.length >= 9, 'the eight catalogue models plus the local one');
  const local = data.find((m) => m.id === MODEL);
  assert.ok(local, `${MODEL} is listed`);
  assert.equal(local.dimensions, 384);
  assert.equal(local.available, true);
  assert.equal(typeof local.description, 'string');
  assert.ok(data.some((m) => m.id === 'provider-a-4-large'));
});

test('indexes.create creates an index locked to the model', needsApi, async () => {
  const { sm, project } = await setup('icreate');
  const index = await sm.indexes.create({ name: 'help-center', embedding_model: MODEL, external_id: 'ext-1' });
  assert.match(index.id, /^[0-9a-f-]{36}$/);
  assert.equal(index.project_id, project.id);
  assert.equal(index.name, 'help-center');
  assert.equal(index.embedding_model, MODEL);
  assert.equal(index.dimensions, 384);
  assert.equal(index.external_id, 'ext-1');
  assert.equal(index.document_count, 0);

  const dup = await rejects(sm.indexes.create({ name: 'help-center' }));
  assert.equal(dup.status, 409);
});

test('indexes.list lists the project\'s indexes', needsApi, async () => {
  const { sm } = await setup('ilist');
  assert.deepEqual((await sm.indexes.list()).data, []);
  const a = await sm.indexes.create({ name: 'a', embedding_model: MODEL });
  const b = await sm.indexes.create({ name: 'b' });
  const { data } = await sm.indexes.list();
  assert.deepEqual(data.map((i) => i.id).sort(), [a.id, b.id].sort());
  assert.ok(data.every((i) => i.embedding_model === MODEL));
});

test('indexes.get counts the documents by status (a bulk load\'s progress)', needsApi, async () => {
  await withIndex('iget', async ({ sm }, index) => {
    const fresh = await sm.indexes.get(index.id);
    assert.deepEqual([fresh.document_count, fresh.documents_ready, fresh.documents_pending, fresh.documents_failed], [0, 0, 0, 0]);
    const doc = await sm.documents.upload(index.id, { content: 'Counting documents as they become ready.' });
    await waitReady(sm, index.id, doc.id);
    const after = await sm.indexes.get(index.id);
    assert.deepEqual([after.document_count, after.documents_ready, after.documents_pending, after.chunk_count], [1, 1, 0, 1]);
    assert.equal((await rejects(sm.indexes.get('00000000-0000-0000-0000-000000000000'))).status, 404);
  });
});

test('indexes.delete deletes an index', needsApi, async () => {
  await withIndex('idel', async ({ sm }, index) => {
    assert.deepEqual(await sm.indexes.delete(index.id), { id: index.id, deleted: true });
    assert.deepEqual((await sm.indexes.list()).data, []);
    const gone = await rejects(sm.indexes.delete(index.id));
    assert.equal(gone.status, 404);
    assert.equal(gone.code, 'not_found');
  });
});

test('documents.upload stores a document and reports its chunks', needsApi, async () => {
  await withIndex('dup', async ({ sm }, index) => {
    const doc = await sm.documents.upload(index.id, { content: 'Refunds are issued within 14 days of purchase.', metadata: { source: 'faq', n: 1 } });
    assert.match(doc.id, /^[0-9a-f-]{36}$/);
    assert.equal(doc.index_id, index.id);
    assert.ok(doc.chunks_created >= 1);
    assert.ok(['pending', 'ready'].includes(doc.status));
    assert.deepEqual(doc.metadata, { source: 'faq', n: 1 });
    assert.ok(!Number.isNaN(Date.parse(doc.created_at)));
  });
});

test('documents.list pages through the documents, newest first', needsApi, async () => {
  await withIndex('dlist', async ({ sm }, index) => {
    const ids = [];
    for (const n of [1, 2, 3]) {
      ids.push((await sm.documents.upload(index.id, { content: `Document number ${n}.` })).id);
      await new Promise((r) => setTimeout(r, 10));
    }
    const all = await sm.documents.list(index.id);
    assert.equal(all.page, 1);
    assert.equal(all.per_page, 20);
    assert.equal(all.total, 3);
    assert.deepEqual(all.data.map((d) => d.id), [...ids].reverse());

    const p1 = await sm.documents.list(index.id, { page: 1, perPage: 2 });
    assert.equal(p1.per_page, 2);
    assert.equal(p1.total, 3);
    assert.deepEqual(p1.data.map((d) => d.id), [ids[2], ids[1]]);
    const p2 = await sm.documents.list(index.id, { page: 2, per_page: 2 }); // the older name still works
    assert.equal(p2.page, 2);
    assert.deepEqual(p2.data.map((d) => d.id), [ids[0]]);
  });
});

test('documents.upsert creates then replaces by external id, reusing unchanged chunks', needsApi, async () => {
  await withIndex('dups', async ({ sm }, index) => {
    const first = await sm.documents.upsert(index.id, 'faq/refunds', { content: 'Refunds take 14 days. Code RF-14.', metadata: { v: 1 } });
    assert.equal(first.external_id, 'faq/refunds');
    assert.equal(first.chunks_reused, 0);
    await waitReady(sm, index.id, first.id);
    const again = await sm.documents.upsert(index.id, 'faq/refunds', { content: 'Refunds take 14 days. Code RF-14.', metadata: { v: 2 } });
    assert.equal(again.id, first.id);
    assert.equal(again.chunks_reused, again.chunks_created);
    assert.equal(again.status, 'ready');
    const { data: chunks } = await sm.documents.chunks(index.id, first.id);
    assert.deepEqual(chunks.map((c) => [c.chunk_index, c.ready]), [[0, true]]);
    assert.match(chunks[0].content, /RF-14/);
    const { results } = await sm.search(index.id, { query: 'RF-14', mode: 'keyword', filter: { v: [2, 3] } });
    assert.equal(results.length, 1);
    assert.equal(results[0].chunk_index, 0);
    assert.deepEqual(results[0].metadata, { v: 2 });
    assert.deepEqual(await sm.documents.deleteByExternalId(index.id, 'faq/refunds'), { id: first.id, deleted: true });
    const gone = await rejects(sm.documents.deleteByExternalId(index.id, 'faq/refunds'));
    assert.equal(gone.status, 404);
    const bad = await rejects(sm.search(index.id, { query: 'x', mode: 'fuzzy' }));
    assert.equal(bad.status, 422);
  });
});

test('documents.uploadBatch stores documents in order, all or none', needsApi, async () => {
  await withIndex('dbatch', async ({ sm }, index) => {
    const { data } = await sm.documents.uploadBatch(index.id, [
      { content: 'First.', external_id: 'a' },
      { content: '<h1>Second</h1><script>x()</script>', content_type: 'text/html' },
    ]);
    assert.deepEqual(data.map((d) => d.external_id), ['a', null]);
    const bad = await rejects(sm.documents.uploadBatch(index.id, [{ content: 'Fine.' }, { content: '' }]));
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.errors.map((e) => e.field), ['documents[1].content']);
    assert.equal((await sm.documents.list(index.id)).total, 2);
  });
});

test('documents.uploadFile uploads a file as multipart form data', needsApi, async () => {
  await withIndex('dfile', async ({ sm }, index) => {
    const file = new Blob(['<h1>Guide</h1><p>The file names FL-77.</p>'], { type: 'text/html' });
    const doc = await sm.documents.uploadFile(index.id, file, { filename: 'guide.html', metadata: { source: 'sdk' }, external_id: 'guide' });
    assert.equal(doc.external_id, 'guide');
    assert.deepEqual(doc.metadata, { source: 'sdk', filename: 'guide.html' });
    await waitReady(sm, index.id, doc.id);
    const { results } = await sm.search(index.id, { query: 'FL-77', mode: 'hybrid' });
    assert.equal(results[0].document_id, doc.id);
    assert.equal(results[0].metadata.filename, 'guide.html');
    assert.match(results[0].chunk_content, /^# Guide/);
    const png = await rejects(sm.documents.uploadFile(index.id, new Blob([new Uint8Array([1, 2])]), { filename: 'logo.png' }));
    assert.equal(png.status, 415);
  });
});

test('search answers a search_id; click reports an opened result; indexes.analytics adds them up', needsApi, async () => {
  await withIndex('kbstats', async ({ sm }, index) => {
    const up = await sm.documents.upload(index.id, { content: 'Refunds take five business days.', metadata: {} });
    await waitReady(sm, index.id, up.id);
    const found = await sm.search(index.id, { query: 'How long do REFUNDS take?' });
    assert.match(found.search_id, /^[0-9a-f-]{36}$/);
    const clicked = await sm.click(index.id, found.search_id, found.results[0].document_id, 1);
    assert.deepEqual(clicked, { search_id: found.search_id, document_id: up.id, position: 1 });
    await sm.search(index.id, { query: 'zzzz qqqq', mode: 'keyword' });
    const a = await sm.indexes.analytics(index.id, { period: '7d' });
    assert.equal(a.searches, 2);
    assert.equal(a.no_result_rate, 0.5);
    assert.equal(a.click_through_rate, 0.5);
    assert.deepEqual(a.no_result_queries, [{ query: 'zzzz qqqq', count: 1 }]);
    assert.equal(a.top_queries.find((q) => q.query === 'how long do refunds take?').clicks, 1);
  });
});

test('answer answers with citations, whole and streamed through an async iterator', needsApi, async () => {
  await withIndex('answer', async ({ sm }, index) => {
    const up = await sm.documents.upload(index.id, { content: 'Refunds take five business days. They go back to the card you paid with.', metadata: { title: 'Refunds' } });
    await waitReady(sm, index.id, up.id);
    // The stack's chat API (tests/fake-chat.mjs) quotes source [1]'s first sentence and cites it.
    const whole = await sm.answer(index.id, { question: 'How long do refunds take?' });
    assert.equal(whole.answer, 'From the knowledge base: Refunds take five business days. [1].');
    assert.deepEqual(whole.citations.map((c) => [c.document_id, c.chunk_index, c.metadata.title]), [[up.id, 0, 'Refunds']]);
    assert.match(whole.search_id, /^[0-9a-f-]{36}$/);

    const stream = sm.answer(index.id, { question: 'How long do refunds take?', top_k: 3, mode: 'hybrid' }, { stream: true });
    const pieces = [];
    for await (const text of stream) pieces.push(text);
    assert.ok(pieces.length > 2, `streamed in pieces: ${pieces}`);
    assert.equal(pieces.join(''), whole.answer);
    assert.deepEqual((await stream.result()).citations, whole.citations);
    // result() alone reads the stream.
    const alone = await sm.answer(index.id, { question: 'refund time' }, { stream: true }).result();
    assert.equal(alone.answer, whole.answer);

    const empty = await rejects(sm.answer(index.id, { question: '  ' }));
    assert.equal(empty.status, 422);
    assert.equal(empty.errors[0].field, 'question');
    await assert.rejects(async () => {
      for await (const _ of sm.answer(index.id, { question: '' }, { stream: true }));
    }, (e) => e instanceof ShipmateError && e.status === 422);
  });
});

test('documents name feedback entries; results carry them; indexes.gaps and gapToFeedback', needsApi, async () => {
  await withIndex('roadmap', async ({ sm, token, project }, index) => {
    const request = await sm.feedback.submit({ title: 'Export invoices to PDF', type: 'feature' });
    const doc = await sm.documents.upload(index.id, { content: 'Invoices can be exported as CSV today.', feedback_ids: [request.id] });
    assert.deepEqual(doc.feedback_ids, [request.id]);
    await waitReady(sm, index.id, doc.id);
    const { results } = await sm.search(index.id, { query: 'invoices exported', mode: 'keyword' });
    assert.deepEqual(results[0].feedback, [{ id: request.id, title: 'Export invoices to PDF', status: 'planned', score: 0 }]);
    // Typo tolerance is on unless turned off.
    assert.equal((await sm.search(index.id, { query: 'invoces', mode: 'keyword' })).results.length, 1);
    assert.equal((await sm.search(index.id, { query: 'invoces', mode: 'keyword', typo_tolerance: false })).results.length, 0);

    const member = new Shipmate({ apiKey: project.api_key, baseUrl: API, sessionToken: token });
    await sm.search(index.id, { query: 'gift cards', mode: 'keyword' });
    const { data } = await member.indexes.gaps(project.id, { period: '7d' });
    // The misspelt search without typo tolerance found nothing: a gap too.
    assert.deepEqual(data.map((g) => [g.query, g.searches]), [['gift cards', 1], ['invoces', 1]]);
    const made = await member.indexes.gapToFeedback(project.id, 'gift cards', 'feature');
    assert.equal(made.title, 'Gift cards');
  });
});

test('an answer stream that reports an error rejects with a ShipmateError', async () => {
  const server = await localServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: delta\ndata: {"text":"Half an ans"}\n\n');
    res.end('event: error\ndata: {"type":"about:blank","title":"Bad Gateway","status":502,"detail":"the chat provider failed: the stream broke","code":"upstream_failed"}\n\n');
  });
  try {
    const sm = new Shipmate({ apiKey: 'pk_x', baseUrl: server.url, retries: 0 });
    const stream = sm.answer('idx', { question: 'why?' }, { stream: true });
    const seen = [];
    await assert.rejects(async () => {
      for await (const text of stream) seen.push(text);
    }, (e) => e instanceof ShipmateError && e.status === 502 && e.code === 'upstream_failed');
    assert.deepEqual(seen, ['Half an ans']);
    await assert.rejects(stream.result(), (e) => e.code === 'upstream_failed');
  } finally {
    await server.close();
  }
});

test('documents.get shows the document becoming ready', needsApi, async () => {
  await withIndex('dget', async ({ sm }, index) => {
    const up = await sm.documents.upload(index.id, { content: 'Our office is open Monday to Friday.', metadata: { lang: 'en' } });
    const doc = await waitReady(sm, index.id, up.id);
    assert.equal(doc.id, up.id);
    assert.equal(doc.index_id, index.id);
    assert.equal(doc.chunks_created, up.chunks_created);
    assert.deepEqual(doc.metadata, { lang: 'en' });
  });
});

test('documents.delete deletes a document', needsApi, async () => {
  await withIndex('ddel', async ({ sm }, index) => {
    const doc = await sm.documents.upload(index.id, { content: 'Temporary text.' });
    assert.deepEqual(await sm.documents.delete(index.id, doc.id), { id: doc.id, deleted: true });
    const gone = await rejects(sm.documents.get(index.id, doc.id));
    assert.equal(gone.status, 404);
    assert.equal(gone.code, 'not_found');
    assert.equal((await sm.documents.list(index.id)).total, 0);
  });
});

test('search returns the most similar chunks', needsApi, async () => {
  await withIndex('search', async ({ sm }, index) => {
    const refunds = await sm.documents.upload(index.id, {
      content: 'Refund policy: we refund any purchase within 14 days, no questions asked.',
      metadata: { topic: 'billing' },
    });
    const hours = await sm.documents.upload(index.id, {
      content: 'Support hours: our team answers chat from 9am to 5pm on weekdays.',
      metadata: { topic: 'support' },
    });
    await waitReady(sm, index.id, refunds.id);
    await waitReady(sm, index.id, hours.id);

    const { results } = await sm.search(index.id, { query: 'Can I get my money back?', top_k: 2 });
    assert.equal(results.length, 2);
    assert.equal(results[0].document_id, refunds.id);
    assert.match(results[0].chunk_content, /refund/i);
    assert.deepEqual(results[0].metadata, { topic: 'billing' });
    assert.equal(typeof results[0].score, 'number');
    assert.ok(results[0].score >= results[1].score, 'sorted by score');

    const one = await sm.search(index.id, { query: 'when is support open' });
    assert.ok(one.results.length >= 1 && one.results.length <= 5);
    assert.equal(one.results[0].document_id, hours.id);

    const bad = await rejects(sm.search(index.id, { query: 'x', top_k: 21 }));
    assert.equal(bad.status, 422);
  });
});

// ---------------------------------------------------------------------------------------------
// Analytics
// ---------------------------------------------------------------------------------------------

test('analytics.track accepts one event by name or as an object', needsApi, async () => {
  const { sm } = await setup('track');
  assert.deepEqual(await sm.analytics.track('signup', { plan: 'pro', seats: 3 }), { accepted: 1 });
  assert.deepEqual(await sm.analytics.track({
    url: 'https://shop.example/pricing?utm_source=hn',
    referrer: 'https://news.ycombinator.com/',
    utm_source: 'hn',
    screen_width: 1280,
  }), { accepted: 1 });
});

test('analytics.trackBatch accepts several events at once', needsApi, async () => {
  const { sm } = await setup('batch');
  const events = [
    { name: 'page_view', url: 'https://shop.example/' },
    { url: 'https://shop.example/pricing' },
    { name: 'checkout', properties: { total: 42, currency: 'EUR' } },
  ];
  assert.deepEqual(await sm.analytics.trackBatch(events), { accepted: 3 });
});

test('analytics.realtime and analytics.csv ask with the session; CSV comes back as text', async () => {
  const seen = [];
  const srv = await localServer((req, res) => {
    seen.push([req.method, req.url, req.headers.accept, req.headers.authorization, req.headers['x-project-key']]);
    if (req.headers.accept === 'text/csv') {
      res.writeHead(200, { 'Content-Type': 'text/csv; charset=utf-8' });
      res.end('page,visitors\r\n/,1\r\n');
    } else {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ visitors: 1, page_views: 2, pages: [{ page: '/', visitors: 1 }] }));
    }
  });
  try {
    const sm = new Shipmate({ apiKey: 'pk_x', baseUrl: srv.url, sessionToken: 'st_abc' });
    assert.deepEqual(await sm.analytics.realtime('p1'), { visitors: 1, page_views: 2, pages: [{ page: '/', visitors: 1 }] });
    assert.equal(await sm.analytics.realtime('p1', { format: 'csv' }), 'page,visitors\r\n/,1\r\n');
    assert.equal(await sm.analytics.csv('pages', 'p1', { period: '7d' }), 'page,visitors\r\n/,1\r\n');
    assert.deepEqual(seen, [
      ['GET', '/v1/analytics/realtime?project_id=p1', 'application/json', 'Bearer st_abc', undefined],
      ['GET', '/v1/analytics/realtime?project_id=p1', 'text/csv', 'Bearer st_abc', undefined],
      ['GET', '/v1/analytics/pages?project_id=p1&period=7d', 'text/csv', 'Bearer st_abc', undefined],
    ]);
  } finally {
    await srv.close();
  }
});

test('analytics.realtime and analytics.csv read a project as its owner', needsApi, async () => {
  const { token, project } = await setup('realtime');
  const sm = new Shipmate({ apiKey: project.api_key, baseUrl: API, sessionToken: token });
  assert.deepEqual(await sm.analytics.realtime(project.id), { visitors: 0, page_views: 0, pages: [] });
  assert.equal(await sm.analytics.realtime(project.id, { format: 'csv' }), 'page,visitors\r\n', 'an empty list keeps its header row');
  assert.equal(
    await sm.analytics.csv('overview', project.id, { period: '7d' }),
    'period,page_views,unique_visitors,top_page,top_referrer,visits,bounce_rate,visit_duration\r\n7d,0,0,,,0,0.0,0\r\n',
  );
  const bad = await rejects(sm.analytics.csv('pages', project.id, { period: '1y' }));
  assert.equal(bad.status, 422);
});

test('analytics.imports uploads a Plausible CSV as multipart form data, refuses anything else, lists and deletes', needsApi, async () => {
  const { token, project } = await setup('imports');
  const sm = new Shipmate({ apiKey: project.api_key, baseUrl: API, sessionToken: token });
  const csv = 'date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-01,3,5,1,4,120\n';
  const made = await sm.analytics.imports.create(project.id, new Blob([csv], { type: 'text/csv' }), 'imported_visitors_20240101_20240101.csv');
  assert.equal(made.status, 'pending');
  assert.equal(made.source, 'plausible');
  const bad = await rejects(sm.analytics.imports.create(project.id, new Blob(['a,b\n1,2\n']), 'notes.csv'));
  assert.equal(bad.status, 422);
  assert.equal(bad.code, 'unsupported_import');
  const { data } = await sm.analytics.imports.list(project.id);
  assert.deepEqual(data.map((i) => i.id), [made.id]);
  assert.deepEqual(await sm.analytics.imports.delete(made.id), { id: made.id, deleted: true });
});

test('analytics reads send the range, the filters and the session; goals, funnels and share links go where they should', async () => {
  const seen = [];
  const srv = await localServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      seen.push([req.method, req.url, req.headers.accept, req.headers.authorization, req.headers['x-project-key'], body || undefined]);
      if (req.method === 'DELETE') { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end(JSON.stringify({ id: decodeURIComponent(req.url.split('/').pop()), deleted: true })); return; }
      if (req.headers.accept === 'text/csv') { res.writeHead(200, { 'Content-Type': 'text/csv' }); res.end('page,visits,visitors\r\n'); return; }
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ ok: req.url }));
    });
  });
  try {
    const sm = new Shipmate({ apiKey: 'pk_x', baseUrl: srv.url, sessionToken: 'st_abc' });
    const J = 'application/json';
    const S = 'Bearer st_abc';
    await sm.analytics.overview('p1', { period: '90d', compare: 'previous', device: 'mobile', country: 'DE' });
    await sm.analytics.entryPages('p1', { from: '2026-01-01', to: '2026-01-31', utm_source: 'newsletter' });
    await sm.analytics.exitPages('p1', { page: '/a b', event: 'signup' });
    await sm.analytics.properties('p1', { event: 'signup', property: 'plan', period: '7d' });
    await sm.analytics.read('referrers', 'p1', { referrer: 'news.ycombinator.com', browser: 'Firefox', os: 'Linux' });
    await sm.analytics.realtime('p1', { page: '/' });
    assert.equal(await sm.analytics.csv('exit-pages', 'p1', { period: '30d', utm_medium: 'email', utm_campaign: 'launch' }), 'page,visits,visitors\r\n');
    await sm.analytics.goals.create({ project_id: 'p1', name: 'Signed up', event: 'signup' });
    await sm.analytics.goals.list('p1', { period: '7d', device: 'desktop' });
    assert.deepEqual(await sm.analytics.goals.delete('g/1'), { id: 'g/1', deleted: true });
    await sm.analytics.funnels.create({ project_id: 'p1', name: 'F', steps: [{ page: '/' }, { event: 'signup' }] });
    await sm.analytics.funnels.list('p1');
    await sm.analytics.funnels.get('f1', { from: '2026-02-01', to: '2026-02-02', country: 'FR' });
    assert.deepEqual(await sm.analytics.funnels.delete('f1'), { id: 'f1', deleted: true });
    await sm.analytics.share.create('p1');
    await sm.analytics.share.list('p1');
    assert.deepEqual(await sm.analytics.share.revoke('p1', 's1'), { id: 's1', deleted: true });
    await sm.analytics.segments.create({ project_id: 'p1', name: 'DE', filters: { country: 'DE' } });
    await sm.analytics.segments.list('p1');
    await sm.analytics.journeys('p1', { page: '/pricing', device: 'mobile' });
    await sm.analytics.alerts.create({ project_id: 'p1', kind: 'traffic_spike', threshold: 100 });
    await sm.analytics.alerts.list('p1');
    assert.deepEqual(await sm.analytics.alerts.delete('a1'), { id: 'a1', deleted: true });
    await sm.analytics.read('pages', 'p1', { segment: 'sg1', page: '/' });
    await sm.analytics.share.create('p1', { segmentId: 'sg1' });
    assert.deepEqual(await sm.analytics.segments.delete('sg1'), { id: 'sg1', deleted: true });
    await sm.analytics.referrers('p1', { goal: 'g1', period: '7d' });
    await sm.analytics.utm('p1', { goal: 'g1', country: 'DE' });
    await sm.analytics.imports.list('p1');
    assert.deepEqual(await sm.analytics.imports.delete('i1'), { id: 'i1', deleted: true });
    assert.deepEqual(seen, [
      ['GET', '/v1/analytics/overview?project_id=p1&period=90d&compare=previous&device=mobile&country=DE', J, S, undefined, undefined],
      ['GET', '/v1/analytics/entry-pages?project_id=p1&from=2026-01-01&to=2026-01-31&utm_source=newsletter', J, S, undefined, undefined],
      ['GET', '/v1/analytics/exit-pages?project_id=p1&page=%2Fa+b&event=signup', J, S, undefined, undefined],
      ['GET', '/v1/analytics/properties?project_id=p1&event=signup&property=plan&period=7d', J, S, undefined, undefined],
      ['GET', '/v1/analytics/referrers?project_id=p1&referrer=news.ycombinator.com&browser=Firefox&os=Linux', J, S, undefined, undefined],
      ['GET', '/v1/analytics/realtime?project_id=p1&page=%2F', J, S, undefined, undefined],
      ['GET', '/v1/analytics/exit-pages?project_id=p1&period=30d&utm_medium=email&utm_campaign=launch', 'text/csv', S, undefined, undefined],
      ['POST', '/v1/analytics/goals', J, S, undefined, '{"project_id":"p1","name":"Signed up","event":"signup"}'],
      ['GET', '/v1/analytics/goals?project_id=p1&period=7d&device=desktop', J, S, undefined, undefined],
      ['DELETE', '/v1/analytics/goals/g%2F1', J, S, undefined, undefined],
      ['POST', '/v1/analytics/funnels', J, S, undefined, '{"project_id":"p1","name":"F","steps":[{"page":"/"},{"event":"signup"}]}'],
      ['GET', '/v1/analytics/funnels?project_id=p1', J, S, undefined, undefined],
      ['GET', '/v1/analytics/funnels/f1?from=2026-02-01&to=2026-02-02&country=FR', J, S, undefined, undefined],
      ['DELETE', '/v1/analytics/funnels/f1', J, S, undefined, undefined],
      ['POST', '/v1/projects/p1/analytics/share', J, S, undefined, undefined],
      ['GET', '/v1/projects/p1/analytics/share', J, S, undefined, undefined],
      ['DELETE', '/v1/projects/p1/analytics/share/s1', J, S, undefined, undefined],
      ['POST', '/v1/analytics/segments', J, S, undefined, '{"project_id":"p1","name":"DE","filters":{"country":"DE"}}'],
      ['GET', '/v1/analytics/segments?project_id=p1', J, S, undefined, undefined],
      ['GET', '/v1/analytics/journeys?project_id=p1&page=%2Fpricing&device=mobile', J, S, undefined, undefined],
      ['POST', '/v1/analytics/alerts', J, S, undefined, '{"project_id":"p1","kind":"traffic_spike","threshold":100}'],
      ['GET', '/v1/analytics/alerts?project_id=p1', J, S, undefined, undefined],
      ['DELETE', '/v1/analytics/alerts/a1', J, S, undefined, undefined],
      ['GET', '/v1/analytics/pages?project_id=p1&segment=sg1&page=%2F', J, S, undefined, undefined],
      ['POST', '/v1/projects/p1/analytics/share', J, S, undefined, '{"segment_id":"sg1"}'],
      ['DELETE', '/v1/analytics/segments/sg1', J, S, undefined, undefined],
      ['GET', '/v1/analytics/referrers?project_id=p1&goal=g1&period=7d', J, S, undefined, undefined],
      ['GET', '/v1/analytics/utm?project_id=p1&goal=g1&country=DE', J, S, undefined, undefined],
      ['GET', '/v1/analytics/imports?project_id=p1', J, S, undefined, undefined],
      ['DELETE', '/v1/analytics/imports/i1', J, S, undefined, undefined],
    ]);
    // Made as a person: without a session token they fail before any request.
    const keyOnly = new Shipmate({ apiKey: 'pk_x', baseUrl: srv.url });
    await assert.rejects(keyOnly.analytics.goals.list('p1'), TypeError);
    await assert.rejects(keyOnly.analytics.share.create('p1'), TypeError);
  } finally {
    await srv.close();
  }
});

/**
 * Stores events as three visitors (the visitor is the IP and user agent of the day), a second apart,
 * and waits until the worker has them; returns a client with the session. A: / -> /pricing -> signup;
 * B (mobile): / -> /docs; C: /pricing -> signup.
 */
async function seedVisitors(key, token, projectId) {
  const agents = {
    a: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    b: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
    c: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  };
  const steps = [
    ['a', { url: 'https://acme.example/' }], ['b', { url: 'https://acme.example/' }], ['c', { url: 'https://acme.example/pricing' }],
    ['a', { url: 'https://acme.example/pricing' }], ['b', { url: 'https://acme.example/docs' }],
    ['a', { name: 'signup', url: 'https://acme.example/pricing', properties: { plan: 'pro' } }],
    ['c', { name: 'signup', url: 'https://acme.example/pricing', properties: { plan: 'free' } }],
  ];
  for (const [who, event] of steps) {
    const res = await fetch(`${API}/v1/analytics/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': agents[who], 'X-Project-Key': key },
      body: JSON.stringify({ name: 'page_view', ...event }),
    });
    assert.equal(res.status, 202);
    await new Promise((r) => setTimeout(r, 1100));
  }
  const reader = new Shipmate({ apiKey: 'pk_unused', baseUrl: API, sessionToken: token });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const o = await reader.analytics.overview(projectId, { period: '7d' });
    if (o.page_views === 5 && o.unique_visitors === 3 && o.visits === 3) return reader;
    if (Date.now() > deadline) assert.fail(`events not stored within 30 s: ${JSON.stringify(o)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('analytics exploration reads: filters, ranges, comparison, entry and exit pages, properties', needsApi, async () => {
  const { token, project } = await setup('explore');
  const sm = await seedVisitors(project.api_key, token, project.id);
  const o = await sm.analytics.overview(project.id, { period: '7d', compare: 'previous' });
  assert.equal(o.period, '7d');
  assert.equal(o.visits, 3);
  assert.equal(Math.round(o.bounce_rate * 10) / 10, 33.3);
  assert.ok(Number.isInteger(o.visit_duration));
  assert.deepEqual(o.previous, { page_views: 0, unique_visitors: 0, visits: 0, bounce_rate: 0, visit_duration: 0 });
  const mobile = await sm.analytics.overview(project.id, { period: '7d', device: 'mobile' });
  assert.deepEqual([mobile.page_views, mobile.unique_visitors], [2, 1]);
  const both = await sm.analytics.overview(project.id, { period: '7d', device: 'desktop', page: '/pricing' });
  assert.deepEqual([both.page_views, both.unique_visitors], [2, 2]);
  const today = new Date().toISOString().slice(0, 10);
  const custom = await sm.analytics.overview(project.id, { from: today, to: today });
  assert.equal(custom.period, 'custom');
  assert.equal(custom.page_views, 5);
  const byRows = (r) => r.data.map((x) => [x.page, x.visits, x.visitors]).sort();
  assert.deepEqual(byRows(await sm.analytics.entryPages(project.id, { period: '7d' })), [['/', 2, 2], ['/pricing', 1, 1]]);
  assert.deepEqual(byRows(await sm.analytics.exitPages(project.id, { period: '7d' })), [['/docs', 1, 1], ['/pricing', 2, 2]]);
  const live = await sm.analytics.realtime(project.id, { device: 'mobile' });
  assert.deepEqual([live.visitors, live.page_views], [1, 2]);
  const props = await sm.analytics.properties(project.id, { event: 'signup', property: 'plan', period: '7d' });
  assert.deepEqual(props.data.map((x) => [x.value, x.count, x.visitors]).sort(), [['free', 1, 1], ['pro', 1, 1]]);
  assert.match(await sm.analytics.csv('entry-pages', project.id, { period: '7d' }), /^page,visits,visitors\r\n/);
  const journeys = await sm.analytics.journeys(project.id, { page: '/', period: '7d' });
  assert.deepEqual([journeys.page, journeys.next, journeys.previous],
    ['/', [{ page: '/docs', visits: 1 }, { page: '/pricing', visits: 1 }], [{ page: '(entrance)', visits: 2 }]]);
  const bad = await rejects(sm.analytics.overview(project.id, { device: 'toaster', country: 'Germany', from: '2026-02-01', to: '2026-01-01' }));
  assert.equal(bad.status, 422);
  const fields = bad.errors.map((e) => e.field);
  for (const f of ['device', 'country']) assert.ok(fields.includes(f), `${f} listed in ${JSON.stringify(bad.errors)}`);
  assert.ok(fields.includes('to') || fields.includes('from'), `the range is listed in ${JSON.stringify(bad.errors)}`);
});

test('analytics goals, funnels and share links: create, read with figures, delete', needsApi, async () => {
  const { token, project } = await setup('goals');
  const sm = await seedVisitors(project.api_key, token, project.id);
  const goal = await sm.analytics.goals.create({ project_id: project.id, name: 'Signed up', event: 'signup' });
  assert.equal(goal.name, 'Signed up');
  assert.equal(goal.event, 'signup');
  const docs = await sm.analytics.goals.create({ project_id: project.id, name: 'Docs', page: '/docs' });
  const goals = await sm.analytics.goals.list(project.id, { period: '7d' });
  const figures = Object.fromEntries(goals.data.map((g) => [g.name, [g.visitors, g.conversions, Math.round(g.conversion_rate * 10) / 10]]));
  assert.deepEqual(figures, { 'Signed up': [3, 2, 66.7], Docs: [3, 1, 33.3] });
  const both = await rejects(sm.analytics.goals.create({ project_id: project.id, name: 'Both', event: 'signup', page: '/' }));
  assert.equal(both.status, 422);
  assert.deepEqual(await sm.analytics.goals.delete(docs.id), { id: docs.id, deleted: true });
  assert.deepEqual((await sm.analytics.goals.list(project.id, { period: '7d' })).data.map((g) => g.id), [goal.id]);

  const funnel = await sm.analytics.funnels.create({ project_id: project.id, name: 'Signup', steps: [{ page: '/' }, { page: '/pricing' }, { event: 'signup' }] });
  assert.equal(funnel.steps.length, 3);
  assert.deepEqual((await sm.analytics.funnels.list(project.id)).data.map((f) => f.id), [funnel.id]);
  const result = await sm.analytics.funnels.get(funnel.id, { period: '7d' });
  assert.deepEqual(result.steps.map((s) => [s.visitors, Math.round(s.conversion_rate)]), [[2, 100], [1, 50], [1, 50]]);
  const one = await rejects(sm.analytics.funnels.create({ project_id: project.id, name: 'Short', steps: [{ page: '/' }] }));
  assert.equal(one.status, 422);
  const nine = await rejects(sm.analytics.funnels.create({ project_id: project.id, name: 'Long', steps: Array.from({ length: 9 }, (_, i) => ({ page: `/${i}` })) }));
  assert.equal(nine.status, 422);
  assert.deepEqual(await sm.analytics.funnels.delete(funnel.id), { id: funnel.id, deleted: true });
  assert.deepEqual((await sm.analytics.funnels.list(project.id)).data, []);

  const link = await sm.analytics.share.create(project.id);
  assert.match(link.url, /\/share\/[^/]+$/);
  assert.deepEqual((await sm.analytics.share.list(project.id)).data.map((l) => l.id), [link.id]);
  assert.equal((await fetch(link.url)).status, 200);
  assert.deepEqual(await sm.analytics.share.revoke(project.id, link.id), { id: link.id, deleted: true });
  assert.deepEqual((await sm.analytics.share.list(project.id)).data, []);
  assert.notEqual((await fetch(link.url)).status, 200);
});

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

test('a bad API key is a ShipmateError 401 unauthorized', needsApi, async () => {
  const sm = new Shipmate({ apiKey: `pk_${'x'.repeat(40)}`, baseUrl: API });
  const e = await rejects(sm.feedback.submit({ title: 'Hello', type: 'bug' }));
  assert.equal(e.status, 401);
  assert.equal(e.code, 'unauthorized');
  assert.equal(e.name, 'ShipmateError');
  assert.equal(typeof e.detail, 'string');
  assert.ok(e.detail.length > 0);
  assert.equal(e.message, e.detail);
  const again = await rejects(sm.indexes.list());
  assert.equal(again.status, 401);
});

test('invalid feedback is a ShipmateError 422 with field errors', needsApi, async () => {
  const { sm } = await setup('invalid');
  const e = await rejects(sm.feedback.submit({ title: '', type: 'complaint', submitter_email: 'nope' }));
  assert.equal(e.status, 422);
  assert.equal(e.code, 'validation_failed');
  assert.ok(Array.isArray(e.errors) && e.errors.length >= 2, 'errors per field');
  const fields = e.errors.map((x) => x.field);
  for (const f of ['title', 'type']) assert.ok(fields.includes(f), `an error for ${f}: ${JSON.stringify(e.errors)}`);
  assert.ok(e.errors.every((x) => typeof x.message === 'string' && x.message));
});

// ---------------------------------------------------------------------------------------------
// Retries and timeouts (local servers, no API)
// ---------------------------------------------------------------------------------------------

test('503 twice then 200: retried with backoff honouring Retry-After', async () => {
  const seen = [];
  const srv = await localServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      seen.push({ at: Date.now(), method: req.method, url: req.url, key: req.headers['x-project-key'], type: req.headers['content-type'], body });
      if (seen.length <= 2) {
        const headers = { 'Content-Type': 'application/problem+json' };
        if (seen.length === 1) headers['Retry-After'] = '1';
        res.writeHead(503, headers);
        res.end(JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'queue down', code: 'unavailable' }));
      } else {
        res.writeHead(202, { 'Content-Type': 'application/json' });
        res.end('{"accepted":1}');
      }
    });
  });
  try {
    const sm = new Shipmate({ apiKey: 'pk_retry', baseUrl: srv.url });
    assert.deepEqual(await sm.analytics.track('signup'), { accepted: 1 });
    assert.equal(seen.length, 3);
    assert.ok(seen[1].at - seen[0].at >= 950, `Retry-After: 1 waited ${seen[1].at - seen[0].at} ms`);
    for (const r of seen) {
      assert.equal(r.method, 'POST');
      assert.equal(r.url, '/v1/analytics/events');
      assert.equal(r.key, 'pk_retry');
      assert.equal(r.type, 'application/json');
      assert.deepEqual(JSON.parse(r.body), { name: 'signup' });
    }
  } finally {
    await srv.close();
  }
});

test('retries run out: the last 503 or 429 is thrown; other errors are not retried', async () => {
  let hits = 0;
  const srv = await localServer((req, res) => {
    hits++;
    const status = req.url.startsWith('/v1/testimonials') ? 429 : req.url.startsWith('/v1/changelog') ? 404 : 503;
    const headers = { 'Content-Type': 'application/problem+json' };
    if (status === 429) headers['Retry-After'] = '0';
    res.writeHead(status, headers);
    res.end(JSON.stringify({ type: 'about:blank', title: 'x', status, detail: `status ${status}`, code: status === 429 ? 'rate_limited' : status === 404 ? 'not_found' : 'unavailable' }));
  });
  try {
    const sm = new Shipmate({ apiKey: 'pk_x', baseUrl: srv.url, retries: 2 });
    const e = await rejects(sm.indexes.list());
    assert.equal(e.status, 503);
    assert.equal(e.code, 'unavailable');
    assert.equal(hits, 3, 'one try and two retries');

    hits = 0;
    const limited = await rejects(sm.testimonials.list());
    assert.equal(limited.status, 429);
    assert.equal(limited.code, 'rate_limited');
    assert.equal(limited.retryAfter, 0);
    assert.equal(hits, 3);

    hits = 0;
    const missing = await rejects(sm.changelog.list());
    assert.equal(missing.status, 404);
    assert.equal(hits, 1, 'a 404 is not retried');
  } finally {
    await srv.close();
  }
});

test('network errors are retried, then thrown as network_error', async () => {
  const srv = await localServer(() => {});
  const url = srv.url;
  await srv.close(); // nothing listens on that port any more
  const sm = new Shipmate({ apiKey: 'pk_x', baseUrl: url, retries: 1 });
  const started = Date.now();
  const e = await rejects(sm.changelog.list());
  assert.equal(e.status, 0);
  assert.equal(e.code, 'network_error');
  assert.ok(Date.now() - started >= 200, 'waited before the retry');
});

test('a server that never answers times out', async () => {
  let hits = 0;
  const srv = await localServer(() => { hits++; /* never answers */ });
  try {
    const sm = new Shipmate({ apiKey: 'pk_x', baseUrl: srv.url, timeoutMs: 300 });
    const started = Date.now();
    const e = await rejects(sm.feedback.submit({ title: 'Hello', type: 'bug' }));
    const took = Date.now() - started;
    assert.equal(e.status, 0);
    assert.equal(e.code, 'timeout');
    assert.ok(took >= 280 && took < 5_000, `timed out after ${took} ms`);
    assert.equal(hits, 1, 'a timeout is not retried');
  } finally {
    await srv.close();
  }
});

test('analytics segments: saved filters read as the filters, and a share link locked to one', needsApi, async () => {
  const { token, project } = await setup('segments');
  const sm = await seedVisitors(project.api_key, token, project.id);
  const mobile = await sm.analytics.segments.create({ project_id: project.id, name: 'Mobile', filters: { device: 'mobile' } });
  assert.deepEqual(mobile.filters, { device: 'mobile' });
  assert.deepEqual((await sm.analytics.segments.list(project.id)).data.map((x) => x.id), [mobile.id]);
  assert.deepEqual(
    await sm.analytics.overview(project.id, { period: '7d', segment: mobile.id }),
    await sm.analytics.overview(project.id, { period: '7d', device: 'mobile' }),
  );
  const link = await sm.analytics.share.create(project.id, { segmentId: mobile.id });
  assert.equal(link.segment_id, mobile.id);
  const bad = await rejects(sm.analytics.segments.create({ project_id: project.id, name: 'Bad', filters: { device: 'toaster' } }));
  assert.deepEqual([bad.status, bad.errors.map((e) => e.field)], [422, ['filters.device']]);
  const unknown = await rejects(sm.analytics.read('pages', project.id, { segment: '00000000-0000-0000-0000-000000000000' }));
  assert.equal(unknown.status, 404);
  assert.deepEqual(await sm.analytics.segments.delete(mobile.id), { id: mobile.id, deleted: true });
  assert.deepEqual((await sm.analytics.share.list(project.id)).data, [], 'the locked link went with its segment');
});
