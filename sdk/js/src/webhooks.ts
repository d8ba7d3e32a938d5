/**
 * Verifying Shipmate's webhook deliveries, per Standard Webhooks (https://www.standardwebhooks.com):
 *
 * ```ts
 * import { verifyWebhook } from '@shipmate/sdk';
 * // `rawBody`: the request body exactly as received (a string or bytes), before any JSON parsing.
 * const event = await verifyWebhook(rawBody, req.headers, process.env.SHIPMATE_WEBHOOK_SECRET);
 * ```
 *
 * It uses WebCrypto (browsers, Deno, Bun, Node 19+ as `globalThis.crypto`; Node 18 through
 * `node:crypto`), so it is asynchronous and has no dependencies.
 */

import type { components } from './schema.js';

/**
 * Every webhook event Shipmate sends (the OpenAPI document's `EventType`). `ping` comes only from the
 * dashboard's (or API's) "Send test".
 */
export type WebhookEventType = components['schemas']['EventType'];

/** The JSON body of a delivery. `data` is the resource as the API returns it to a project owner. */
export interface WebhookEvent<T = Record<string, unknown>> {
  type: WebhookEventType | (string & {});
  /** RFC 3339, when the event happened. */
  timestamp: string;
  data: T;
}

/**
 * The request headers: a `Headers` object (fetch, Deno, Bun, Next.js), Node's `req.headers`
 * (lower-case keys, string or string[] values), or any plain object (keys matched case-insensitively).
 */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far, in seconds, `webhook-timestamp` may be from now, either way; 300 (5 minutes) by default. */
  tolerance?: number;
  /** The current time, in milliseconds since the epoch (for tests); `Date.now()` by default. */
  now?: number;
}

export type WebhookVerificationCode =
  | 'invalid_secret'
  | 'missing_headers'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'invalid_signature'
  | 'invalid_payload';

/** Thrown by `verifyWebhook` when a delivery cannot be trusted (or its body is not JSON); answer it 400. */
export class WebhookVerificationError extends Error {
  /** A stable machine code for the reason. */
  readonly code: WebhookVerificationCode;

  constructor(code: WebhookVerificationCode, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.code = code;
  }
}

const SECRET_PREFIX = 'whsec_';
const DEFAULT_TOLERANCE_S = 5 * 60;
const utf8 = new TextEncoder();

/**
 * Checks that a delivery was signed with `secret` (the webhook's `whsec_...` secret) and is recent,
 * then returns its parsed JSON body. Throws a `WebhookVerificationError` otherwise.
 *
 * - `payload` must be the raw body, byte for byte: re-serialised JSON does not verify.
 * - `webhook-signature` may carry several space-separated `v1,<base64>` signatures (after a secret
 *   rotation Shipmate signs with the new and the previous secret for 24 hours); one match is enough.
 * - `webhook-timestamp` more than `tolerance` seconds (5 minutes by default) from now is refused,
 *   so a captured delivery cannot be replayed later. `webhook-id` is the same on every retry of an
 *   event: keep the ids you have handled to ignore duplicates (delivery is at least once).
 */
export async function verifyWebhook<T = WebhookEvent>(
  payload: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<T> {
  const key = decodeSecret(secret);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signature = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signature) {
    const missing = [['webhook-id', id], ['webhook-timestamp', timestamp], ['webhook-signature', signature]]
      .filter(([, v]) => !v).map(([k]) => k);
    throw new WebhookVerificationError('missing_headers', `Webhook verification failed: missing header ${missing.join(', ')}`);
  }
  checkTimestamp(timestamp, options);

  const body = typeof payload === 'string' ? utf8.encode(payload) : new Uint8Array(payload);
  const prefix = utf8.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix, 0);
  signed.set(body, prefix.length);

  const subtle = await subtleCrypto();
  const hmacKey = await subtle.importKey('raw', key as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = new Uint8Array(await subtle.sign('HMAC', hmacKey, signed));

  let matched = false;
  for (const entry of signature.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma < 0 || entry.slice(0, comma) !== 'v1') continue; // other schemes (v1a, ...) are not ours
    const given = base64Decode(entry.slice(comma + 1));
    // Every entry is compared in full, whether or not an earlier one matched.
    if (given && constantTimeEqual(given, expected)) matched = true;
  }
  if (!matched) {
    throw new WebhookVerificationError('invalid_signature', 'Webhook verification failed: no signature matches (wrong secret, or the body was changed or re-serialised)');
  }

  const text = typeof payload === 'string' ? payload : new TextDecoder().decode(body);
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'Webhook verification failed: the signed body is not JSON');
  }
}

function decodeSecret(secret: string): Uint8Array {
  if (typeof secret !== 'string' || !secret) {
    throw new WebhookVerificationError('invalid_secret', 'Webhook verification failed: no secret given (the webhook\'s whsec_... secret)');
  }
  const raw = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = base64Decode(raw);
  if (!key || key.length === 0) {
    throw new WebhookVerificationError('invalid_secret', 'Webhook verification failed: the secret is not whsec_ followed by base64');
  }
  return key;
}

function checkTimestamp(raw: string, options: VerifyWebhookOptions): void {
  if (!/^\d{1,12}$/.test(raw.trim())) {
    throw new WebhookVerificationError('invalid_timestamp', 'Webhook verification failed: webhook-timestamp is not Unix seconds');
  }
  const tolerance = options.tolerance ?? DEFAULT_TOLERANCE_S;
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const ts = Number(raw.trim());
  if (ts < now - tolerance) {
    throw new WebhookVerificationError('timestamp_too_old', `Webhook verification failed: webhook-timestamp is more than ${tolerance} s in the past`);
  }
  if (ts > now + tolerance) {
    throw new WebhookVerificationError('timestamp_too_new', `Webhook verification failed: webhook-timestamp is more than ${tolerance} s in the future`);
  }
}

/** One header's value from any of the usual header shapes; repeated headers are joined with spaces. */
function header(headers: WebhookHeaders, name: string): string {
  if (!headers || typeof headers !== 'object') return '';
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return ((headers as { get(n: string): string | null }).get(name) ?? '').trim();
  }
  const record = headers as Record<string, string | string[] | undefined>;
  let value = record[name];
  if (value === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  if (Array.isArray(value)) return value.join(' ').trim();
  return typeof value === 'string' ? value.trim() : '';
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false; // lengths are public: every v1 signature is 32 bytes
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** Standard base64 (padding optional); null when `s` is not base64. */
function base64Decode(s: string): Uint8Array | null {
  const bare = s.trim().replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(bare) || bare.length % 4 === 1) return null;
  const bin = atob(bare.padEnd(Math.ceil(bare.length / 4) * 4, '='));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

let subtlePromise: Promise<SubtleCrypto> | undefined;

/** WebCrypto's `subtle`: the global one, else Node's (Node 18 has no global `crypto` by default). */
function subtleCrypto(): Promise<SubtleCrypto> {
  if (!subtlePromise) {
    const global = (globalThis as { crypto?: Crypto }).crypto;
    if (global && global.subtle) {
      subtlePromise = Promise.resolve(global.subtle);
    } else {
      // A variable specifier keeps bundlers for browsers from trying to include a Node module.
      const nodeCrypto = 'node:crypto';
      subtlePromise = import(/* webpackIgnore: true */ nodeCrypto).then((m: { webcrypto?: Crypto }) => {
        if (!m.webcrypto || !m.webcrypto.subtle) throw new Error('no WebCrypto');
        return m.webcrypto.subtle;
      }).catch(() => {
        subtlePromise = undefined;
        throw new Error('verifyWebhook needs WebCrypto (crypto.subtle), which this runtime lacks');
      });
    }
  }
  return subtlePromise;
}
