// Tests of verifyWebhook (sdk/js/dist, the committed build): Standard Webhooks signatures made here with
// node:crypto, and, when SHIPMATE_API_URL is set (tests/sdk/run.sh), a real delivery from the service to a
// local receiver. The stack must allow 127.0.0.1 as a webhook host (tests/stack.sh sets
// SHIPMATE_WEBHOOK_ALLOWED_HOSTS).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHmac, randomBytes } from 'node:crypto';
import { verifyWebhook, WebhookVerificationError } from '../../sdk/js/dist/index.js';

const API = process.env.SHIPMATE_API_URL ? process.env.SHIPMATE_API_URL.replace(/\/+$/, '') : '';
const needsApi = API ? {} : { skip: 'SHIPMATE_API_URL is not set' };

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** The `v1,<base64>` signature Standard Webhooks defines, for `secret` over `${id}.${ts}.${body}`. */
function sign(secret, id, ts, body) {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64')}`;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A delivery as Shipmate sends it: body and headers, signed with every secret given (space-separated). */
function delivery(secrets, { ts = nowSeconds(), body } = {}) {
  const id = `msg_${randomBytes(8).toString('hex')}`;
  const payload = body ?? JSON.stringify({
    type: 'feedback.created',
    timestamp: new Date(ts * 1000).toISOString(),
    data: { id: 'f6d4c1e2-0000-7000-8000-000000000001', title: 'Dark mode', type: 'feature', status: 'planned' },
  });
  const headers = {
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': secrets.map((s) => sign(s, id, ts, payload)).join(' '),
  };
  return { id, payload, headers };
}

/** Expects `promise` to reject with a WebhookVerificationError of `code`; returns it. */
async function refused(promise, code) {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof WebhookVerificationError, `a WebhookVerificationError, got ${e}`);
    assert.ok(e instanceof Error);
    assert.equal(e.code, code, e.message);
    assert.match(e.message, /^Webhook verification failed: /);
    return e;
  }
  assert.fail(`expected verifyWebhook to refuse (${code})`);
}

test('a correctly signed delivery verifies and its parsed body is returned', async () => {
  const secret = newSecret();
  const { payload, headers } = delivery([secret]);
  const event = await verifyWebhook(payload, headers, secret);
  assert.equal(event.type, 'feedback.created');
  assert.equal(event.data.title, 'Dark mode');
  assert.deepEqual(event, JSON.parse(payload));
});

test('the example of the Standard Webhooks specification verifies', async () => {
  const headers = {
    'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    'webhook-timestamp': '1614265330',
    'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  };
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const now = 1614265330 * 1000 + 10_000;
  assert.deepEqual(await verifyWebhook('{"test": 2432232314}', headers, secret, { now }), { test: 2432232314 });
  // The same delivery today is a replay.
  await refused(verifyWebhook('{"test": 2432232314}', headers, secret), 'timestamp_too_old');
});

test('the body may be given as bytes, and headers as a Headers object or with any letter case', async () => {
  const secret = newSecret();
  const { payload, headers } = delivery([secret]);
  const bytes = Buffer.from(payload, 'utf8');
  assert.equal((await verifyWebhook(bytes, headers, secret)).type, 'feedback.created');
  assert.equal((await verifyWebhook(new Uint8Array(bytes).buffer, new Headers(headers), secret)).type, 'feedback.created');
  const shouted = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.replace(/(^|-)\w/g, (c) => c.toUpperCase()), v]));
  assert.equal((await verifyWebhook(payload, shouted, secret)).type, 'feedback.created');
});

test('a body changed after signing is refused', async () => {
  const secret = newSecret();
  const { payload, headers } = delivery([secret]);
  const tampered = payload.replace('Dark mode', 'Dark mode!');
  await refused(verifyWebhook(tampered, headers, secret), 'invalid_signature');
  // Re-serialising the JSON (here: pretty-printing it) breaks the signature too: verify the raw body.
  await refused(verifyWebhook(JSON.stringify(JSON.parse(payload), null, 2), headers, secret), 'invalid_signature');
  // So does a different webhook-id or timestamp with the same signature.
  await refused(verifyWebhook(payload, { ...headers, 'webhook-id': 'msg_other' }, secret), 'invalid_signature');
  await refused(verifyWebhook(payload, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) }, secret), 'invalid_signature');
});

test('a delivery signed with another secret is refused', async () => {
  const { payload, headers } = delivery([newSecret()]);
  await refused(verifyWebhook(payload, headers, newSecret()), 'invalid_signature');
});

test('a timestamp more than 5 minutes off is refused, unless the tolerance allows it', async () => {
  const secret = newSecret();
  const old = delivery([secret], { ts: nowSeconds() - 6 * 60 });
  await refused(verifyWebhook(old.payload, old.headers, secret), 'timestamp_too_old');
  const future = delivery([secret], { ts: nowSeconds() + 6 * 60 });
  await refused(verifyWebhook(future.payload, future.headers, secret), 'timestamp_too_new');
  // Four minutes off is within the default tolerance; ten minutes within a 15-minute one.
  const recent = delivery([secret], { ts: nowSeconds() - 4 * 60 });
  assert.equal((await verifyWebhook(recent.payload, recent.headers, secret)).type, 'feedback.created');
  const older = delivery([secret], { ts: nowSeconds() - 10 * 60 });
  assert.equal((await verifyWebhook(older.payload, older.headers, secret, { tolerance: 15 * 60 })).type, 'feedback.created');
  await refused(verifyWebhook(recent.payload, recent.headers, secret, { tolerance: 60 }), 'timestamp_too_old');
});

test('after a rotation, two signatures are sent and either secret verifies', async () => {
  const previous = newSecret();
  const current = newSecret();
  const { payload, headers } = delivery([current, previous]);
  assert.equal(headers['webhook-signature'].split(' ').length, 2);
  assert.equal((await verifyWebhook(payload, headers, current)).type, 'feedback.created');
  assert.equal((await verifyWebhook(payload, headers, previous)).type, 'feedback.created');
  await refused(verifyWebhook(payload, headers, newSecret()), 'invalid_signature');
  // Unknown schemes and malformed entries are skipped, not fatal.
  const mixed = { ...headers, 'webhook-signature': `v1a,AAAA garbage v1,!!! ${headers['webhook-signature']}` };
  assert.equal((await verifyWebhook(payload, mixed, previous)).type, 'feedback.created');
});

test('missing headers, a malformed timestamp, a bad secret and a non-JSON body each fail clearly', async () => {
  const secret = newSecret();
  const { payload, headers } = delivery([secret]);
  const { 'webhook-signature': _, ...unsigned } = headers;
  const e = await refused(verifyWebhook(payload, unsigned, secret), 'missing_headers');
  assert.match(e.message, /webhook-signature/);
  await refused(verifyWebhook(payload, { ...headers, 'webhook-timestamp': 'yesterday' }, secret), 'invalid_timestamp');
  await refused(verifyWebhook(payload, headers, ''), 'invalid_secret');
  await refused(verifyWebhook(payload, headers, 'whsec_not*base64'), 'invalid_secret');
  const text = delivery([secret], { body: 'not json' });
  await refused(verifyWebhook(text.payload, text.headers, secret), 'invalid_payload');
  // The secret's prefix is optional, as in other Standard Webhooks libraries.
  assert.equal((await verifyWebhook(payload, headers, secret.slice('whsec_'.length))).type, 'feedback.created');
});

// ---------------------------------------------------------------------------------------------
// Against the service: its signatures verify with the SDK.
// ---------------------------------------------------------------------------------------------

async function call(method, p, { token, body, expect } = {}) {
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(API + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (expect !== undefined && res.status !== expect) throw new Error(`${method} ${p}: expected ${expect}, got ${res.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A local receiver that stores every request (raw body and headers) and answers 200. */
async function receiver() {
  const got = [];
  let wake = () => {};
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      got.push({ body: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(200).end('ok');
      wake();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    got,
    async next(count, ms = 30_000) {
      const deadline = Date.now() + ms;
      while (got.length < count) {
        if (Date.now() > deadline) assert.fail(`no delivery within ${ms} ms (is shipmate-worker running?)`);
        await new Promise((r) => { wake = r; setTimeout(r, 250); });
      }
      return got[count - 1];
    },
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };
}

test('a test ping from the service verifies, before and after a secret rotation', needsApi, async () => {
  const slug = `sdk-hook-${randomBytes(4).toString('hex')}`;
  const { token } = await call('POST', '/v1/auth/dev-login', { body: { email: `owner-${slug}@example.com`, name: 'SDK Tester' }, expect: 200 });
  const project = await call('POST', '/v1/projects', { token, body: { name: 'SDK hooks', slug }, expect: 201 });
  const rx = await receiver();
  try {
    const base = `/v1/projects/${project.id}/webhooks`;
    const hook = await call('POST', base, { token, body: { url: rx.url, events: ['*'] }, expect: 201 });
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);

    await call('POST', `${base}/${hook.id}/test`, { token, expect: 202 });
    const first = await rx.next(1);
    const event = await verifyWebhook(first.body, first.headers, hook.secret);
    assert.equal(event.type, 'ping');
    assert.ok(!Number.isNaN(Date.parse(event.timestamp)));
    await refused(verifyWebhook(first.body, first.headers, newSecret()), 'invalid_signature');

    const rotated = await call('POST', `${base}/${hook.id}/rotate-secret`, { token, expect: 200 });
    assert.notEqual(rotated.secret, hook.secret);
    await call('POST', `${base}/${hook.id}/test`, { token, expect: 202 });
    const second = await rx.next(2);
    assert.equal(second.headers['webhook-signature'].split(' ').length, 2, 'new and previous secret for 24 hours');
    assert.equal((await verifyWebhook(second.body, second.headers, rotated.secret)).type, 'ping');
    assert.equal((await verifyWebhook(second.body, second.headers, hook.secret)).type, 'ping');
  } finally {
    await rx.close();
  }
});
