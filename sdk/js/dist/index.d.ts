/**
 * Shipmate JavaScript SDK: every API-key operation of the Shipmate API, for browsers and Node 18+.
 *
 * ```ts
 * import { Shipmate } from '@shipmate/sdk';
 * const sm = new Shipmate({ apiKey: 'pk_...', baseUrl: 'https://api.example.com' });
 * await sm.feedback.submit({ title: 'Dark mode', type: 'feature' });
 * ```
 */
import type { components } from './schema.js';
/** Every request and response body and every enum of the API, by its name in the OpenAPI document. */
export type Schemas = components['schemas'];
export type { components, paths } from './schema.js';
/** A list answer: `{data: [...]}` (the document's `List_*` schemas). */
export interface List<T> {
    data: T[];
}
/** A page of a paginated list: `{data, page, per_page, total}` (the document's `Page_*` schemas). */
export interface Page<T> extends List<T> {
    page: number;
    per_page: number;
    total: number;
}
/** The answer of every deletion. */
export type Deleted = Schemas['Deleted'];
export type FeedbackType = Schemas['FeedbackType'];
export type FeedbackStatus = Schemas['FeedbackStatus'];
export type FeedbackInput = Schemas['NewFeedback'];
export type FeedbackEntry = Schemas['Feedback'];
export type TestimonialStatus = Schemas['TestimonialStatus'];
export type TestimonialInput = Schemas['NewTestimonial'];
export type Testimonial = Schemas['Testimonial'];
export type ChangelogType = Schemas['ChangelogType'];
export type ChangelogEntry = Schemas['Entry'];
export type IndexInput = Schemas['NewIndex'];
export type Index = Schemas['Index'];
export type EmbeddingModel = Schemas['ModelInfo'];
/** A document's metadata: any JSON object, returned with every search result. */
export type Metadata = NonNullable<Schemas['NewDocument']['metadata']>;
export type DocumentInput = Schemas['NewDocument'];
export type DocumentStatus = Schemas['DocumentStatus'];
export type Document = Schemas['Document'];
/** The query of `documents.list` (an SDK option; the API's query parameters). */
export interface DocumentListQuery {
    /** From 1. */
    page?: number;
    /** 20 by default, at most 100. */
    per_page?: number;
}
export type SearchInput = Schemas['SearchQuery'];
export type SearchResult = Schemas['SearchResult'];
export type SearchResponse = Schemas['SearchResults'];
/**
 * The properties `analytics.track(name, properties)` takes: a flat object of strings, numbers and
 * booleans (up to 4 KB). Narrower than the API's `Event.properties`, which accepts any object.
 */
export type EventProperties = Record<string, string | number | boolean | null>;
export type AnalyticsEvent = Schemas['Event'];
export type TrackResponse = Schemas['Accepted'];
export type FieldError = Schemas['FieldError'];
/** An RFC 9457 problem details body, as the API sends with every error. */
export type Problem = Schemas['Problem'];
/**
 * Any failed call. `status` is the HTTP status (0 when no answer came: `code` is then `timeout` or
 * `network_error`); `code` is the API's stable snake_case code, e.g. `unauthorized` or `validation_failed`.
 */
export declare class ShipmateError extends Error {
    readonly status: number;
    readonly code: string;
    readonly detail: string;
    readonly errors?: FieldError[];
    readonly type: string;
    readonly title: string;
    /** Seconds from a `Retry-After` header, when the API sent one. */
    readonly retryAfter?: number;
    /** `problem` may be partial: the SDK makes its own for timeouts, network errors and non-JSON answers. */
    constructor(status: number, problem: Partial<Problem>, retryAfter?: number, options?: {
        cause?: unknown;
    });
}
export interface ShipmateOptions {
    /** The project API key (`pk_...`). */
    apiKey: string;
    /** The API's base address, e.g. `https://api.example.com`. */
    baseUrl: string;
    /** Per attempt; 10,000 ms by default. */
    timeoutMs?: number;
    /** Extra attempts after a 429, a 503 or a network error; 3 by default. */
    retries?: number;
    /** A `fetch` implementation; the global one by default. */
    fetch?: typeof fetch;
}
export declare class Shipmate {
    readonly baseUrl: string;
    private readonly apiKey;
    private readonly timeoutMs;
    private readonly retries;
    private readonly fetchImpl;
    constructor(options: ShipmateOptions);
    /** Feedback: bugs, feature requests and general feedback. */
    readonly feedback: {
        /** `POST /v1/feedback`: the created entry. */
        submit: (input: FeedbackInput) => Promise<FeedbackEntry>;
    };
    /** Testimonials: submitted as `pending`; only approved ones are listed. */
    readonly testimonials: {
        /** `POST /v1/testimonials`: the created testimonial (status `pending`). */
        submit: (input: TestimonialInput) => Promise<Testimonial>;
        /** `GET /v1/testimonials`: approved testimonials only. */
        list: () => Promise<List<Testimonial>>;
    };
    /** Changelog: published entries. */
    readonly changelog: {
        /** `GET /v1/changelog`: published entries, newest first. */
        list: () => Promise<List<ChangelogEntry>>;
    };
    /** Knowledge base indexes. */
    readonly indexes: {
        /** `POST /v1/indexes`. */
        create: (input: IndexInput) => Promise<Index>;
        /** `GET /v1/indexes`. */
        list: () => Promise<List<Index>>;
        /** `DELETE /v1/indexes/:indexId`: the index and all its documents. */
        delete: (indexId: string) => Promise<Deleted>;
        /** `GET /v1/indexes/models`: the embedding models and whether each is available. */
        models: () => Promise<List<EmbeddingModel>>;
    };
    /** Documents of an index; chunked and embedded by the service after upload. */
    readonly documents: {
        /** `POST /v1/indexes/:indexId/documents`: the document, `pending` until embedded. */
        upload: (indexId: string, input: DocumentInput) => Promise<Document>;
        /** `GET /v1/indexes/:indexId/documents`: a page, newest first. */
        list: (indexId: string, query?: DocumentListQuery) => Promise<Page<Document>>;
        /** `GET /v1/indexes/:indexId/documents/:docId`: shows `status`. */
        get: (indexId: string, docId: string) => Promise<Document>;
        /** `DELETE /v1/indexes/:indexId/documents/:docId`: the document and its chunks. */
        delete: (indexId: string, docId: string) => Promise<Deleted>;
    };
    /** Analytics events (page views are `page_view`). */
    readonly analytics: {
        /** `POST /v1/analytics/events` with one event: a name (and properties), or a whole event. */
        track: (event: string | AnalyticsEvent, properties?: EventProperties) => Promise<TrackResponse>;
        /** `POST /v1/analytics/events` with up to 100 events at once. */
        trackBatch: (events: AnalyticsEvent[]) => Promise<TrackResponse>;
    };
    /** `POST /v1/indexes/:indexId/search`: the `top_k` most similar ready chunks. */
    search(indexId: string, input: SearchInput): Promise<SearchResponse>;
    /**
     * One API call: JSON in and out, a timeout per attempt, and retries of 429, 503 and network
     * errors with exponential backoff (honouring `Retry-After`). Timeouts are not retried.
     */
    private request;
}
export { verifyWebhook, WebhookVerificationError } from './webhooks.js';
export type { WebhookEvent, WebhookEventType, WebhookHeaders, VerifyWebhookOptions, WebhookVerificationCode, } from './webhooks.js';
export default Shipmate;
