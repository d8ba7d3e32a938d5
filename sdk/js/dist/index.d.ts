/**
 * Shipmate JavaScript SDK: every API-key operation of the Shipmate API, the public feedback board
 * (by project slug), and the feedback loop's calls made as a person (with a session token), for
 * browsers and Node 18+.
 *
 * ```ts
 * import { Shipmate, paginate } from '@shipmate/sdk';
 * const sm = new Shipmate({ apiKey: 'pk_...', baseUrl: 'https://api.example.com' });
 * await sm.feedback.submit({ title: 'Dark mode', type: 'feature' });
 * for await (const t of paginate((page) => sm.testimonials.list(page))) console.log(t.author_name);
 * ```
 */
import type { components } from './schema.js';
import type { Answer, AnswerInput, AnswerStream } from './answers.js';
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
/** Which page of a list to read: `page` from 1, `perPage` 1 to 100 (50 by default). */
export interface PageQuery {
    page?: number;
    perPage?: number;
}
export type FeedbackType = Schemas['FeedbackType'];
export type FeedbackStatus = Schemas['FeedbackStatus'];
export type FeedbackModeration = Schemas['FeedbackModeration'];
export type FeedbackSort = Schemas['FeedbackSort'];
export type FeedbackInput = Schemas['NewFeedback'];
export type FeedbackEntry = Schemas['Feedback'];
export type GitHubHook = Schemas['GitHubHook'];
export type Tag = Schemas['Tag'];
/** A feedback board: `public`, `private` (the team) or `segment` (end users whose identify token's attributes match). */
export type Board = Schemas['Board'];
export type NewBoard = Schemas['NewBoard'];
export type BoardChanges = Schemas['BoardChanges'];
export type NewTag = Schemas['NewTag'];
export type Comment = Schemas['Comment'];
export type Roadmap = Schemas['Roadmap'];
/** The query of `board.list`: a page, filtered and sorted (`top` by default: score, then newest). */
export interface BoardQuery extends PageQuery {
    type?: FeedbackType;
    status?: FeedbackStatus;
    sort?: FeedbackSort;
    /** Entries with this tag (its id). */
    tag?: string;
    /** One board's entries (its slug); a board the caller may not see answers 404. */
    board?: string;
}
/** An entry close in meaning to a text, as `board.similar` answers (`similarity` 0 to 1). */
export type SimilarEntry = Schemas['SimilarEntry'];
/** `identify`'s answer: the end user's `eu_...` session and who they are. */
export type Identified = Schemas['Identified'];
/** An entry's votes after a vote, with the caller's own (1, -1 or 0). */
export type VoteState = Schemas['VoteState'];
/** `vote`'s direction: `up`, `down`, or `none` to withdraw the caller's vote. */
export type VoteDirection = 'up' | 'down' | 'none';
/** How much an upvote matters to the voter. */
export type Importance = Schemas['Importance'];
/** An upvoter as `feedback.voters` lists them. */
export type Voter = Schemas['Voter'];
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
export type Chunk = Schemas['Chunk'];
/** Options of `documents.uploadFile`. */
export interface FileUploadOptions {
    /** The file name sent; its extension (`.md`, `.txt`, `.html`, `.pdf`) says how to read it. Defaults to the `File`'s name. */
    filename?: string;
    metadata?: Metadata;
    /** Creates or replaces the document with this external id, as `documents.upsert` does. */
    external_id?: string;
}
/** The query of `documents.list`: 20 a page by default, at most 100. */
export interface DocumentListQuery extends PageQuery {
    /** @deprecated The name before `perPage`, still honoured. */
    per_page?: number;
}
/** A new version of a document, for `documents.upsert`. */
export type DocumentVersionInput = Schemas['DocumentVersion'];
/** How content is read: `text/markdown` (default), `text/plain` or `text/html` (visible text only). */
export type ContentType = Schemas['ContentType'];
/** `vector` (default), `keyword` (full text) or `hybrid` (both fused by reciprocal rank). */
export type SearchMode = Schemas['SearchMode'];
/** Metadata key to a value, or to a list of values any of which may match. */
export type SearchFilter = NonNullable<Schemas['SearchQuery']['filter']>;
export type SearchInput = Schemas['SearchQuery'];
export type SearchResult = Schemas['SearchResult'];
export type SearchResponse = Schemas['SearchResults'];
/** What an index was searched for (`indexes.analytics`). */
export type SearchAnalytics = Schemas['SearchAnalytics'];
export type ClickRecorded = Schemas['ClickRecorded'];
/** A search gap: a query people did not find an answer to, with the closest public request. */
export type SearchGap = Schemas['SearchGap'];
/** A feedback entry a document is about, as it is now (`feedback` on results and citations). */
export type LinkedFeedback = Schemas['LinkedFeedback'];
/**
 * The properties `analytics.track(name, properties)` takes: a flat object of strings, numbers and
 * booleans (up to 4 KB). Narrower than the API's `Event.properties`, which accepts any object.
 */
export type EventProperties = Record<string, string | number | boolean | null>;
export type AnalyticsEvent = Schemas['Event'];
export type TrackResponse = Schemas['Accepted'];
/** `analytics.realtime`'s answer: visitors of the last 5 minutes, page views of the last 30, top pages. */
export type AnalyticsRealtime = Schemas['Realtime'];
/** The analytics reads that take a range and filters (`GET /v1/analytics/<report>`). */
export type AnalyticsReport = 'overview' | 'pages' | 'referrers' | 'countries' | 'devices' | 'events' | 'timeseries' | 'utm' | 'entry-pages' | 'exit-pages' | 'properties';
/** A period a read may ask for (`custom` is what answers say for `from`/`to`). */
export type AnalyticsPeriod = Exclude<Schemas['Period'], 'custom'>;
/** The filters every analytics read takes: exact values, combined with AND. */
export interface AnalyticsFilters {
    page?: string;
    referrer?: string;
    /** Two letters, e.g. `DE`. */
    country?: string;
    device?: 'desktop' | 'mobile' | 'tablet';
    browser?: string;
    os?: string;
    utm_source?: string;
    utm_medium?: string;
    utm_campaign?: string;
    /** An event name (`page_view` for page views). */
    event?: string;
}
/**
 * What an analytics read covers: a `period` (30 days by default), or `from` and `to` (`YYYY-MM-DD`,
 * inclusive, UTC, at most 2 years; the answer's `period` is then `custom`), narrowed by filters.
 */
export interface AnalyticsQuery extends AnalyticsFilters {
    /** A saved segment's id: its filters are added to those given. */
    segment?: string;
    /**
     * With `referrers` and `utm`: a goal's id; each row adds `conversions` (its visitors who reached
     * the goal), `conversion_rate` (percent) and, for a goal with a currency, `revenue`.
     */
    goal?: string;
    period?: AnalyticsPeriod;
    from?: string;
    to?: string;
}
/** A read's answer format: JSON (the default) or the server's CSV as text. */
export interface AnalyticsFormat {
    format?: 'json' | 'csv';
}
/** The answer's `period`: a preset, or `custom` for `from`/`to`. */
export type AnalyticsAnswerPeriod = Schemas['Period'];
/** The figures `compare: 'previous'` adds for the period just before. */
export type AnalyticsPrevious = Schemas['Figures'];
/** `analytics.overview`'s answer: `bounce_rate` in percent, `visit_duration` the median in seconds. */
export type AnalyticsOverview = Schemas['Overview'];
/**
 * A row of the `pages` read: views, visitors, and the medians of its engagement events (sm.plus.js):
 * `scroll_depth` in percent and `time_on_page` in seconds, `null` without any.
 */
export type AnalyticsPage = Schemas['PageRow'];
/** `analytics.journeys`' answer: `next` and `previous`, each `[{ page, visits }]`. */
export type Journeys = Schemas['Journeys'];
/**
 * A row of `analytics.referrers`; with `goal`, it adds `conversions`, `conversion_rate` (percent) and,
 * for a goal with a currency, `revenue` (`{ total, average, currency }`).
 */
export type AnalyticsReferrer = Schemas['ReferrerRow'];
/** `analytics.utm`'s answer: `sources`, `mediums` and `campaigns`, their rows as referrers' with `goal`. */
export type AnalyticsUtm = Schemas['Utm'];
/** A row of `analytics.entryPages` and `analytics.exitPages`. */
export type AnalyticsVisitPage = Schemas['VisitPageRow'];
/** A row of `analytics.properties`: one value of the property. */
export type AnalyticsPropertyValue = Schemas['PropertyRow'];
/** An answer of the ranked reads: the period and its rows (the document's `Breakdown_*` schemas). */
export interface AnalyticsRows<T> {
    period: AnalyticsAnswerPeriod;
    data: T[];
}
/** A new goal: `event` or `page`, exactly one of them. */
export type GoalInput = Schemas['NewGoal'];
/** A goal as created. */
export type Goal = Schemas['Goal'];
/**
 * A goal with its figures for the range: `visitors` all the range's visitors, `conversions` those who
 * reached it, `conversion_rate` in percent (0 to 100).
 */
export type GoalResult = Schemas['GoalRow'];
/** One step of a new funnel: a page path or an event name, exactly one. */
export type FunnelStep = {
    page: string;
    event?: never;
} | {
    event: string;
    page?: never;
};
/** A new funnel: 2 to 8 ordered steps. */
export type FunnelInput = Omit<Schemas['NewFunnel'], 'steps'> & {
    steps: FunnelStep[];
};
/** A funnel as stored: its steps are `{page}` or `{event}`. */
export type Funnel = Schemas['Funnel'];
/**
 * A funnel's figures for the range: at each step the visitors who reached every earlier step before
 * it on the same day, and `conversion_rate` as a percent of the first step's visitors.
 */
export type FunnelResult = Schemas['FunnelReport'];
/** A read-only link to a project's analytics (`/share/<token>`, no sign-in), until revoked. */
export type ShareLink = Schemas['ShareLink'];
/** An analytics alert, its last figure (`value`) and whether it is going off (`firing`). */
export type Alert = Schemas['Alert'];
/**
 * An import of Plausible's export: `pending` (with `progress`, percent) until a worker applies it
 * whole (`done`, with `from`, `to` and `rows`) or not at all (`failed`, with `error`).
 */
export type AnalyticsImport = Schemas['AnalyticsImport'];
/** A new alert: `traffic_spike` / `traffic_drop` (visitors of the last hour above / below `threshold`) or `goal`. */
export type AlertInput = Schemas['NewAlert'];
/** A saved segment: a name for a set of filters (`{ country: 'DE' }`), read with `segment: id`. */
export type Segment = Schemas['Segment'];
/** A new segment: the project, a name and 1 to 10 filters. */
export type SegmentInput = Omit<Schemas['NewSegment'], 'filters'> & {
    filters: AnalyticsFilters;
};
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
    /**
     * A session token, for the calls made as a person: `st_...` (a member's sign-in, e.g. from the
     * CLI) to moderate and merge, or an end user's `eu_...` to comment. Sent as `Authorization:
     * Bearer` by those calls and by board submissions, which then come from that account.
     */
    sessionToken?: string;
    /** The API's base address, e.g. `https://api.example.com`. */
    baseUrl: string;
    /** Per attempt; 10,000 ms by default. */
    timeoutMs?: number;
    /** Extra attempts after a 429, a 503 or a network error; 3 by default. */
    retries?: number;
    /** A `fetch` implementation; the global one by default. */
    fetch?: typeof fetch;
}
/**
 * Every item of a paginated list, read page after page until its `total`: `list` reads one page
 * (any of the SDK's list methods), `query` sets the page size and where to start.
 *
 * ```ts
 * for await (const entry of paginate((page) => sm.changelog.list(page), { perPage: 100 })) { ... }
 * ```
 */
export declare function paginate<T>(list: (query: PageQuery) => Promise<Page<T>>, query?: PageQuery): AsyncGenerator<T, void, undefined>;
export declare class Shipmate {
    readonly baseUrl: string;
    private readonly apiKey;
    private sessionToken?;
    private readonly timeoutMs;
    private readonly retries;
    private readonly fetchImpl;
    constructor(options: ShipmateOptions);
    /**
     * `POST /v1/auth/identify` (either key): exchanges a JWT your backend signed with the project's
     * identify secret for an end user's `eu_...` session, which this client then sends as its
     * session token: `vote`, `comment` and board submissions come from that user.
     */
    identify(jwt: string): Promise<Identified>;
    /**
     * Votes on a feature request as the session's person (`identify` first, or `sessionToken`):
     * `up` (the default) or `down` replace any earlier vote, `none` withdraws it. An upvote may say
     * how much it matters (`importance`, default `nice_to_have`). The entry's votes.
     */
    vote(feedbackId: string, direction?: VoteDirection, importance?: Importance): Promise<VoteState>;
    /** Comments on a public entry as the session's person (`comments.add`). The created comment. */
    comment(feedbackId: string, body: string): Promise<Comment>;
    /** Feedback: bugs, feature requests and general feedback. */
    readonly feedback: {
        /** `POST /v1/feedback`: the created entry. */
        submit: (input: FeedbackInput) => Promise<FeedbackEntry>;
        /**
         * `PATCH /v1/feedback/:id` (session, members): approve an entry for the public board, hold it
         * as `pending`, or mark it `spam`. The updated entry.
         */
        moderate: (id: string, moderation: FeedbackModeration) => Promise<FeedbackEntry>;
        /**
         * `POST /v1/feedback/:id/merge` (session, members): merges the duplicate `id` into `into`, its
         * votes moving over once per person; it then leaves every list. The entry merged into.
         */
        merge: (id: string, into: string) => Promise<FeedbackEntry>;
        /**
         * `PATCH /v1/feedback/:id` (session, members): links the entry to GitHub issues
         * (`https://github.com/<owner>/<repo>/issues/<n>`, up to 20), replacing its links; `[]` removes
         * them. Closing or reopening a linked issue moves the entry once GitHub is connected.
         */
        link: (id: string, links: string[]) => Promise<FeedbackEntry>;
        /**
         * `POST /v1/projects/:projectId/integrations/github` (session, admins): the payload URL and a
         * new secret for the repository's webhook settings (content type JSON, the "Issues" event).
         */
        connectGitHub: (projectId: string) => Promise<GitHubHook>;
        /**
         * `GET /v1/feedback` (session, the team): a page of the project's entries with the customer value
         * behind each (`companies`, `mrr`, `importance`); `sort` also takes `mrr` and `must_have`.
         */
        list: (projectId: string, query?: BoardQuery & {
            moderation?: FeedbackModeration;
        }) => Promise<Page<FeedbackEntry>>;
        /** `GET /v1/feedback/:id/voters` (session, members): upvoters with company and importance, newest first. */
        voters: (id: string) => Promise<List<Voter>>;
        /** `PATCH /v1/feedback/:id` (session, members): replaces the entry's tags (ids of its project's tags). */
        tag: (id: string, tags: string[]) => Promise<FeedbackEntry>;
        /** `PATCH /v1/feedback/:id` (session, members): moves the entry to another board of its project (by slug). */
        move: (id: string, board: string) => Promise<FeedbackEntry>;
    };
    /** A project's feedback boards (session: admins make, change and delete them; the team reads them). */
    readonly boards: {
        /** `GET /v1/projects/:projectId/boards`: the default board first. */
        list: (projectId: string) => Promise<List<Board>>;
        /** `POST /v1/projects/:projectId/boards`: a `segment` board names its `segment` (`{"plan": "enterprise"}`). */
        create: (projectId: string, input: NewBoard) => Promise<Board>;
        /** `PATCH /v1/projects/:projectId/boards/:boardId`: name, slug, visibility, segment. */
        update: (projectId: string, boardId: string, changes: BoardChanges) => Promise<Board>;
        /** `DELETE /v1/projects/:projectId/boards/:boardId`: a board with entries needs `moveTo`, the board that takes them. */
        delete: (projectId: string, boardId: string, moveTo?: string) => Promise<Deleted>;
    };
    /** A project's tags for feedback (session: members make and delete them, viewers read them). */
    readonly tags: {
        /** `GET /v1/projects/:projectId/tags`: by name. */
        list: (projectId: string) => Promise<List<Tag>>;
        /** `POST /v1/projects/:projectId/tags`: `color` is `#rrggbb` (grey when left out). */
        create: (projectId: string, input: NewTag) => Promise<Tag>;
        /** `DELETE /v1/projects/:projectId/tags/:tagId`: entries keep their other tags. */
        delete: (projectId: string, tagId: string) => Promise<Deleted>;
    };
    /**
     * The project's public feedback boards, by its slug (`GET /v1/project` tells a key's slug): public
     * boards, segment boards once `identify` made this client an end user whose attributes match, and
     * every board with a member's session.
     */
    readonly board: {
        /**
         * `POST /v1/feedback/by-project/:slug`: a submission as the board takes it (no key); it waits
         * as `pending` while the project moderates its board. Never carries `submitter_email`.
         */
        submitFeedback: (slug: string, input: FeedbackInput) => Promise<FeedbackEntry>;
        /** `GET /v1/feedback/by-project/:slug`: a page of the approved entries. */
        list: (slug: string, query?: BoardQuery) => Promise<Page<FeedbackEntry>>;
        /** `GET /v1/feedback/by-project/:slug/roadmap`: feature requests planned, in progress, shipped lately (`tag`: only those with it; `board`: one board's). */
        roadmap: (slug: string, tag?: string, board?: string) => Promise<Roadmap>;
        /** `GET /v1/feedback/by-project/:slug/similar?q=`: up to 5 public entries closest in meaning to `q` (`board`: one board's). */
        similar: (slug: string, q: string, board?: string) => Promise<List<SimilarEntry>>;
        /** `GET /v1/feedback/by-project/:slug/boards`: the boards this client may see (segment boards after `identify`). */
        boards: (slug: string) => Promise<List<Board>>;
    };
    /** Comments on public feedback entries; a project member's comment is `official`. */
    readonly comments: {
        /** `GET /v1/feedback/:id/comments`: oldest first. */
        list: (feedbackId: string) => Promise<List<Comment>>;
        /** `POST /v1/feedback/:id/comments` (session): 1 to 5,000 characters. The created comment. */
        add: (feedbackId: string, body: string) => Promise<Comment>;
        /** `DELETE /v1/feedback/comments/:id` (session): its author's, or any for a member. */
        delete: (commentId: string) => Promise<Deleted>;
    };
    /** Testimonials: submitted as `pending`; only approved ones are listed. */
    readonly testimonials: {
        /** `POST /v1/testimonials`: the created testimonial (status `pending`). */
        submit: (input: TestimonialInput) => Promise<Testimonial>;
        /** `GET /v1/testimonials`: a page of the approved testimonials, newest first. */
        list: (query?: PageQuery) => Promise<Page<Testimonial>>;
    };
    /** Changelog: published entries. */
    readonly changelog: {
        /** `GET /v1/changelog`: a page of the published entries, newest first. */
        list: (query?: PageQuery) => Promise<Page<ChangelogEntry>>;
    };
    /** Knowledge base indexes. */
    readonly indexes: {
        /** `POST /v1/indexes`. */
        create: (input: IndexInput) => Promise<Index>;
        /** `GET /v1/indexes`. */
        list: () => Promise<List<Index>>;
        /** `GET /v1/indexes/:indexId`: the index with its documents by status (a bulk load's progress is `documents_ready` of `document_count`). */
        get: (indexId: string) => Promise<Index>;
        /** `DELETE /v1/indexes/:indexId`: the index and all its documents. */
        delete: (indexId: string) => Promise<Deleted>;
        /** `GET /v1/indexes/models`: the embedding models and whether each is available. */
        models: () => Promise<List<EmbeddingModel>>;
        /**
         * `GET /v1/indexes/:indexId/analytics` (the secret key): searches, the no-result and
         * click-through rates, and the top, no-result and low-confidence queries over `period` or `from`-`to`.
         */
        analytics: (indexId: string, query?: {
            period?: "7d" | "30d" | "90d";
            from?: string;
            to?: string;
        }) => Promise<SearchAnalytics>;
        /**
         * `GET /v1/projects/:projectId/insights/search-gaps` (a member's `sessionToken`): what people
         * searched the project's indexes for and did not find, rewordings grouped, most searched first,
         * each with the most similar public request.
         */
        gaps: (projectId: string, query?: {
            period?: "7d" | "30d" | "90d";
            from?: string;
            to?: string;
        }) => Promise<List<SearchGap>>;
        /** `POST /v1/projects/:projectId/insights/search-gaps/feedback`: a request made from a gap (its query as the title). */
        gapToFeedback: (projectId: string, query: string, type: FeedbackType) => Promise<FeedbackEntry>;
    };
    /** Documents of an index; chunked and embedded by the service after upload. */
    readonly documents: {
        /** `POST /v1/indexes/:indexId/documents`: the document, `pending` until embedded. */
        upload: (indexId: string, input: DocumentInput) => Promise<Document>;
        /** `GET /v1/indexes/:indexId/documents`: a page, newest first. */
        list: (indexId: string, query?: DocumentListQuery) => Promise<Page<Document>>;
        /** `GET /v1/indexes/:indexId/documents/:docId`: shows `status`. */
        get: (indexId: string, docId: string) => Promise<Document>;
        /** `GET /v1/indexes/:indexId/documents/:docId/chunks`: the newest version's chunks, in order. */
        chunks: (indexId: string, docId: string) => Promise<List<Chunk>>;
        /** `DELETE /v1/indexes/:indexId/documents/:docId`: the document and its chunks. */
        delete: (indexId: string, docId: string) => Promise<Deleted>;
        /**
         * `PUT /v1/indexes/:indexId/documents/by-external-id/:externalId`: creates the document, or
         * replaces its content and metadata; `chunks_reused` says how many chunks kept their vectors.
         */
        upsert: (indexId: string, externalId: string, input: DocumentVersionInput) => Promise<Document>;
        /** `DELETE /v1/indexes/:indexId/documents/by-external-id/:externalId`. */
        deleteByExternalId: (indexId: string, externalId: string) => Promise<Deleted>;
        /** `POST /v1/indexes/:indexId/documents/batch`: 1 to 100 documents, stored all or none, answered in order. */
        uploadBatch: (indexId: string, documents: DocumentInput[]) => Promise<List<Document>>;
        /**
         * `POST /v1/indexes/:indexId/documents/file`: a Markdown, text, HTML or PDF file (up to 10 MB)
         * as multipart form data.
         */
        uploadFile: (indexId: string, file: Blob, options?: FileUploadOptions) => Promise<Document>;
    };
    /** Analytics events (page views are `page_view`). */
    readonly analytics: {
        /** `POST /v1/analytics/events` with one event: a name (and properties), or a whole event. */
        track: (event: string | AnalyticsEvent, properties?: EventProperties) => Promise<TrackResponse>;
        /** `POST /v1/analytics/events` with up to 100 events at once. */
        trackBatch: (events: AnalyticsEvent[]) => Promise<TrackResponse>;
        /**
         * `GET /v1/analytics/realtime` (session, members): distinct visitors of the last 5 minutes,
         * page views of the last 30 and the top 10 pages by visitors, narrowed by `filters`;
         * `{ format: 'csv' }` gives the pages as CSV text.
         */
        realtime: {
            (projectId: string, options?: AnalyticsFilters & {
                format?: "json";
            }): Promise<AnalyticsRealtime>;
            (projectId: string, options: AnalyticsFilters & {
                format: "csv";
            }): Promise<string>;
        };
        /**
         * `GET /v1/analytics/<report>` as CSV text (session, members): a header row of the JSON field
         * names, then a row per item (`data`'s rows; the overview as one row). Takes the range and filters.
         */
        csv: (report: AnalyticsReport, projectId: string, options?: AnalyticsQuery & {
            property?: string;
            compare?: "previous";
        }) => Promise<string>;
        /**
         * `GET /v1/analytics/<report>` as JSON (session, members), for any read: the range, the filters,
         * and the report's own parameters (`property` of `properties`).
         */
        read: <T = unknown>(report: AnalyticsReport, projectId: string, options?: AnalyticsQuery & {
            property?: string;
            compare?: "previous";
        }) => Promise<T>;
        /**
         * `GET /v1/analytics/overview` (session, members): page views, visitors, visits, bounce rate
         * (percent) and median visit duration (seconds); `compare: 'previous'` adds the period before.
         */
        overview: (projectId: string, options?: AnalyticsQuery & {
            compare?: "previous";
        }) => Promise<AnalyticsOverview>;
        /** `GET /v1/analytics/entry-pages` (session, members): where visits began, by visits. */
        entryPages: (projectId: string, options?: AnalyticsQuery) => Promise<AnalyticsRows<AnalyticsVisitPage>>;
        /** `GET /v1/analytics/exit-pages` (session, members): where visits ended, by visits. */
        exitPages: (projectId: string, options?: AnalyticsQuery) => Promise<AnalyticsRows<AnalyticsVisitPage>>;
        /**
         * `GET /v1/analytics/referrers` (session, members): views and visitors per referrer host; with
         * `goal` (a goal's id), each row adds that source's conversions of it.
         */
        referrers: (projectId: string, options?: AnalyticsQuery) => Promise<AnalyticsRows<AnalyticsReferrer>>;
        /**
         * `GET /v1/analytics/utm` (session, members): views and visitors per UTM source, medium and
         * campaign; with `goal`, each row adds its conversions of that goal.
         */
        utm: (projectId: string, options?: AnalyticsQuery) => Promise<AnalyticsUtm>;
        /**
         * `GET /v1/analytics/properties` (session, members): the values of one custom property of an
         * event, each with its count and visitors.
         */
        properties: (projectId: string, options: AnalyticsQuery & {
            event: string;
            property: string;
        }) => Promise<AnalyticsRows<AnalyticsPropertyValue>>;
        /**
         * `GET /v1/analytics/journeys` (session, members): within visits, the pages viewed right after
         * and right before `page`, most visits first (`(exit)` / `(entrance)` when the visit ended / began there).
         */
        journeys: (projectId: string, options: AnalyticsQuery & {
            page: string;
        }) => Promise<Journeys>;
        /** Goals (session): an event or a page; members create and delete them. */
        goals: {
            /** `POST /v1/analytics/goals`: `event` or `page`, exactly one. The created goal. */
            create: (input: GoalInput) => Promise<Goal>;
            /** `GET /v1/analytics/goals`: every goal of the project with its conversions over the range. */
            list: (projectId: string, options?: AnalyticsQuery) => Promise<AnalyticsRows<GoalResult>>;
            /** `DELETE /v1/analytics/goals/:id`: `{ id, deleted: true }`. */
            delete: (goalId: string) => Promise<Deleted>;
        };
        /** Funnels (session): 2 to 8 ordered steps; members create and delete them. */
        funnels: {
            /** `POST /v1/analytics/funnels`. The created funnel. */
            create: (input: FunnelInput) => Promise<Funnel>;
            /** `GET /v1/analytics/funnels`: the project's funnels (their steps, no figures). */
            list: (projectId: string) => Promise<List<Funnel>>;
            /** `GET /v1/analytics/funnels/:id`: the visitors at each step over the range, filtered. */
            get: (funnelId: string, options?: AnalyticsQuery) => Promise<FunnelResult>;
            /** `DELETE /v1/analytics/funnels/:id`: `{ id, deleted: true }`. */
            delete: (funnelId: string) => Promise<Deleted>;
        };
        /** Alerts (session): a traffic spike or drop, or a goal's conversions, over the last hour; members set them. */
        alerts: {
            /** `POST /v1/analytics/alerts`: `goal_id` with `kind: 'goal'` only. The created alert. */
            create: (input: AlertInput) => Promise<Alert>;
            /** `GET /v1/analytics/alerts`: the project's alerts with their last figure and whether each is going off. */
            list: (projectId: string) => Promise<List<Alert>>;
            /** `DELETE /v1/analytics/alerts/:id`: `{ id, deleted: true }`. */
            delete: (alertId: string) => Promise<Deleted>;
        };
        /** Imports of Plausible's export (session): members upload and delete them. */
        imports: {
            /**
             * `POST /v1/analytics/imports?project_id=`: the ZIP Plausible's "Export data" makes, or one of
             * its CSV files, as multipart form data; answered `pending` (422 `unsupported_import` for a
             * file that is no such export).
             */
            create: (projectId: string, file: Blob, filename?: string) => Promise<AnalyticsImport>;
            /** `GET /v1/analytics/imports`: the project's imports, newest first. */
            list: (projectId: string) => Promise<List<AnalyticsImport>>;
            /** `DELETE /v1/analytics/imports/:id`: removes every figure it brought; `{ id, deleted: true }`. */
            delete: (importId: string) => Promise<Deleted>;
        };
        /** Saved segments (session): members create and delete them; any read takes `segment: id`. */
        segments: {
            /** `POST /v1/analytics/segments`. The created segment. */
            create: (input: SegmentInput) => Promise<Segment>;
            /** `GET /v1/analytics/segments`: the project's segments, oldest first. */
            list: (projectId: string) => Promise<List<Segment>>;
            /** `DELETE /v1/analytics/segments/:id`: also revokes the share links locked to it; `{ id, deleted: true }`. */
            delete: (segmentId: string) => Promise<Deleted>;
        };
        /** Read-only links to the project's analytics (session; owners and admins). */
        share: {
            /** `POST /v1/projects/:projectId/analytics/share`: a new link (`url`); with `segmentId`, showing that segment only. */
            create: (projectId: string, options?: {
                segmentId?: string;
            }) => Promise<ShareLink>;
            /** `GET /v1/projects/:projectId/analytics/share`: the links that work. */
            list: (projectId: string) => Promise<List<ShareLink>>;
            /** `DELETE /v1/projects/:projectId/analytics/share/:id`: the link stops working at once; `{ id, deleted: true }`. */
            revoke: (projectId: string, linkId: string) => Promise<Deleted>;
        };
    };
    /** An analytics read of `report` for `projectId`, as JSON or (`format: 'csv'`) CSV text. */
    private analyticsRead;
    /**
     * `POST /v1/indexes/:indexId/search`: the `top_k` best ready chunks, by `mode` (`vector`,
     * `keyword`, `hybrid`), narrowed by a metadata `filter`; with `highlight: true` each result's
     * `highlights` (matching passages, words in `<mark>`, the rest HTML-escaped). The answer's
     * `search_id` reports clicks (`click`).
     */
    search(indexId: string, input: SearchInput): Promise<SearchResponse>;
    /**
     * `POST /v1/indexes/:indexId/searches/:searchId/click`: reports that the searcher opened a result
     * (`searchId` from `search`'s answer, `position` its rank from 1), for the index's analytics.
     */
    click(indexId: string, searchId: string, documentId: string, position: number): Promise<ClickRecorded>;
    /**
     * `POST /v1/indexes/:indexId/answer`: the question answered by the project's chat model from the
     * index's `top_k` best chunks, with `citations` (the chunks the answer cites as `[n]`, in the
     * order first cited). With `{ stream: true }`, an async iterator of the text as it is written,
     * and `result()` for the whole answer:
     *
     * ```ts
     * const stream = sm.answer(indexId, { question }, { stream: true });
     * for await (const text of stream) process.stdout.write(text);
     * const { citations } = await stream.result();
     * ```
     */
    answer(indexId: string, input: AnswerInput): Promise<Answer>;
    answer(indexId: string, input: AnswerInput, options: {
        stream: true;
    }): AnswerStream;
    /** One API call: JSON in and out (other representations, such as CSV, as their text). */
    private request;
    /**
     * Sends until answered: a timeout per attempt (for a `stream`, until its head arrives; its body
     * is left to read), and retries of 429, 503 and network errors with exponential backoff
     * (honouring `Retry-After`). Timeouts are not retried. Failures throw `ShipmateError`.
     */
    private send;
}
export type { Answer, AnswerInput, AnswerStream, Citation } from './answers.js';
export { verifyWebhook, WebhookVerificationError } from './webhooks.js';
export type { WebhookEvent, WebhookEventType, WebhookHeaders, VerifyWebhookOptions, WebhookVerificationCode, } from './webhooks.js';
export default Shipmate;
