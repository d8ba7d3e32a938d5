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
export type WebhookHeaders = {
    get(name: string): string | null;
} | Record<string, string | string[] | undefined>;
export interface VerifyWebhookOptions {
    /** How far, in seconds, `webhook-timestamp` may be from now, either way; 300 (5 minutes) by default. */
    tolerance?: number;
    /** The current time, in milliseconds since the epoch (for tests); `Date.now()` by default. */
    now?: number;
}
export type WebhookVerificationCode = 'invalid_secret' | 'missing_headers' | 'invalid_timestamp' | 'timestamp_too_old' | 'timestamp_too_new' | 'invalid_signature' | 'invalid_payload';
/** Thrown by `verifyWebhook` when a delivery cannot be trusted (or its body is not JSON); answer it 400. */
export declare class WebhookVerificationError extends Error {
    /** A stable machine code for the reason. */
    readonly code: WebhookVerificationCode;
    constructor(code: WebhookVerificationCode, message: string);
}
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
export declare function verifyWebhook<T = WebhookEvent>(payload: string | Uint8Array | ArrayBuffer, headers: WebhookHeaders, secret: string, options?: VerifyWebhookOptions): Promise<T>;
