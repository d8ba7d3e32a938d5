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
import { AnswerEvents } from './answers.js';
/**
 * Any failed call. `status` is the HTTP status (0 when no answer came: `code` is then `timeout` or
 * `network_error`); `code` is the API's stable snake_case code, e.g. `unauthorized` or `validation_failed`.
 */
export class ShipmateError extends Error {
    /** `problem` may be partial: the SDK makes its own for timeouts, network errors and non-JSON answers. */
    constructor(status, problem, retryAfter, options) {
        const title = problem.title ?? (status ? `HTTP ${status}` : 'Request failed');
        const detail = problem.detail ?? title;
        super(detail);
        this.name = 'ShipmateError';
        this.status = status;
        this.code = problem.code ?? (status ? `http_${status}` : 'network_error');
        this.detail = detail;
        this.type = problem.type ?? 'about:blank';
        this.title = title;
        if (problem.errors)
            this.errors = problem.errors;
        if (retryAfter !== undefined)
            this.retryAfter = retryAfter;
        if (options && 'cause' in options)
            this.cause = options.cause;
    }
}
const RETRY_STATUSES = new Set([429, 503]);
const BACKOFF_BASE_MS = 250;
const BACKOFF_MAX_MS = 30000;
const RETRY_AFTER_MAX_MS = 120000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
function retryAfterSeconds(res) {
    const raw = res.headers.get('retry-after');
    if (raw === null)
        return undefined;
    const secs = Number(raw.trim());
    if (Number.isFinite(secs) && secs >= 0)
        return secs;
    const at = Date.parse(raw);
    return Number.isNaN(at) ? undefined : Math.max(0, (at - Date.now()) / 1000);
}
const seg = (id) => encodeURIComponent(id);
const pageQuery = (q) => ({ page: q.page, per_page: q.perPage });
/** An analytics read's query string parameters: every option that is set, as it is named in the API. */
const analyticsParams = (options) => {
    const query = {};
    for (const [k, v] of Object.entries(options))
        if (v !== undefined && v !== null && v !== '')
            query[k] = String(v);
    return query;
};
/**
 * Every item of a paginated list, read page after page until its `total`: `list` reads one page
 * (any of the SDK's list methods), `query` sets the page size and where to start.
 *
 * ```ts
 * for await (const entry of paginate((page) => sm.changelog.list(page), { perPage: 100 })) { ... }
 * ```
 */
export async function* paginate(list, query = {}) {
    // An item created while the pages are read shifts the later pages: it must not come twice.
    const seen = new Set();
    for (let page = query.page ?? 1;; page++) {
        const res = await list({ ...query, page });
        for (const item of res.data) {
            const id = item.id;
            if (id !== undefined) {
                if (seen.has(id))
                    continue;
                seen.add(id);
            }
            yield item;
        }
        if (res.data.length === 0 || page * res.per_page >= res.total)
            return;
    }
}
export class Shipmate {
    constructor(options) {
        /** Feedback: bugs, feature requests and general feedback. */
        this.feedback = {
            /** `POST /v1/feedback`: the created entry. */
            submit: (input) => this.request('POST', '/v1/feedback', input),
            /**
             * `PATCH /v1/feedback/:id` (session, members): approve an entry for the public board, hold it
             * as `pending`, or mark it `spam`. The updated entry.
             */
            moderate: (id, moderation) => this.request('PATCH', `/v1/feedback/${seg(id)}`, { moderation }, undefined, 'session'),
            /**
             * `POST /v1/feedback/:id/merge` (session, members): merges the duplicate `id` into `into`, its
             * votes moving over once per person; it then leaves every list. The entry merged into.
             */
            merge: (id, into) => this.request('POST', `/v1/feedback/${seg(id)}/merge`, { into }, undefined, 'session'),
            /**
             * `PATCH /v1/feedback/:id` (session, members): links the entry to GitHub issues
             * (`https://github.com/<owner>/<repo>/issues/<n>`, up to 20), replacing its links; `[]` removes
             * them. Closing or reopening a linked issue moves the entry once GitHub is connected.
             */
            link: (id, links) => this.request('PATCH', `/v1/feedback/${seg(id)}`, { links }, undefined, 'session'),
            /**
             * `POST /v1/projects/:projectId/integrations/github` (session, admins): the payload URL and a
             * new secret for the repository's webhook settings (content type JSON, the "Issues" event).
             */
            connectGitHub: (projectId) => this.request('POST', `/v1/projects/${seg(projectId)}/integrations/github`, undefined, undefined, 'session'),
            /**
             * `GET /v1/feedback` (session, the team): a page of the project's entries with the customer value
             * behind each (`companies`, `mrr`, `importance`); `sort` also takes `mrr` and `must_have`.
             */
            list: (projectId, query = {}) => this.request('GET', '/v1/feedback', undefined, { project_id: projectId, ...pageQuery(query), type: query.type, status: query.status, sort: query.sort, tag: query.tag, board: query.board, moderation: query.moderation }, 'session'),
            /** `GET /v1/feedback/:id/voters` (session, members): upvoters with company and importance, newest first. */
            voters: (id) => this.request('GET', `/v1/feedback/${seg(id)}/voters`, undefined, undefined, 'session'),
            /** `PATCH /v1/feedback/:id` (session, members): replaces the entry's tags (ids of its project's tags). */
            tag: (id, tags) => this.request('PATCH', `/v1/feedback/${seg(id)}`, { tags }, undefined, 'session'),
            /** `PATCH /v1/feedback/:id` (session, members): moves the entry to another board of its project (by slug). */
            move: (id, board) => this.request('PATCH', `/v1/feedback/${seg(id)}`, { board }, undefined, 'session'),
        };
        /** A project's feedback boards (session: admins make, change and delete them; the team reads them). */
        this.boards = {
            /** `GET /v1/projects/:projectId/boards`: the default board first. */
            list: (projectId) => this.request('GET', `/v1/projects/${seg(projectId)}/boards`, undefined, undefined, 'session'),
            /** `POST /v1/projects/:projectId/boards`: a `segment` board names its `segment` (`{"plan": "enterprise"}`). */
            create: (projectId, input) => this.request('POST', `/v1/projects/${seg(projectId)}/boards`, input, undefined, 'session'),
            /** `PATCH /v1/projects/:projectId/boards/:boardId`: name, slug, visibility, segment. */
            update: (projectId, boardId, changes) => this.request('PATCH', `/v1/projects/${seg(projectId)}/boards/${seg(boardId)}`, changes, undefined, 'session'),
            /** `DELETE /v1/projects/:projectId/boards/:boardId`: a board with entries needs `moveTo`, the board that takes them. */
            delete: (projectId, boardId, moveTo) => this.request('DELETE', `/v1/projects/${seg(projectId)}/boards/${seg(boardId)}`, undefined, { move_to: moveTo }, 'session'),
        };
        /** A project's tags for feedback (session: members make and delete them, viewers read them). */
        this.tags = {
            /** `GET /v1/projects/:projectId/tags`: by name. */
            list: (projectId) => this.request('GET', `/v1/projects/${seg(projectId)}/tags`, undefined, undefined, 'session'),
            /** `POST /v1/projects/:projectId/tags`: `color` is `#rrggbb` (grey when left out). */
            create: (projectId, input) => this.request('POST', `/v1/projects/${seg(projectId)}/tags`, input, undefined, 'session'),
            /** `DELETE /v1/projects/:projectId/tags/:tagId`: entries keep their other tags. */
            delete: (projectId, tagId) => this.request('DELETE', `/v1/projects/${seg(projectId)}/tags/${seg(tagId)}`, undefined, undefined, 'session'),
        };
        /**
         * The project's public feedback boards, by its slug (`GET /v1/project` tells a key's slug): public
         * boards, segment boards once `identify` made this client an end user whose attributes match, and
         * every board with a member's session.
         */
        this.board = {
            /**
             * `POST /v1/feedback/by-project/:slug`: a submission as the board takes it (no key); it waits
             * as `pending` while the project moderates its board. Never carries `submitter_email`.
             */
            submitFeedback: (slug, input) => this.request('POST', `/v1/feedback/by-project/${seg(slug)}`, input, undefined, 'public'),
            /** `GET /v1/feedback/by-project/:slug`: a page of the approved entries. */
            list: (slug, query = {}) => this.request('GET', `/v1/feedback/by-project/${seg(slug)}`, undefined, { ...pageQuery(query), type: query.type, status: query.status, sort: query.sort, tag: query.tag, board: query.board }, 'public'),
            /** `GET /v1/feedback/by-project/:slug/roadmap`: feature requests planned, in progress, shipped lately (`tag`: only those with it; `board`: one board's). */
            roadmap: (slug, tag, board) => this.request('GET', `/v1/feedback/by-project/${seg(slug)}/roadmap`, undefined, { tag, board }, 'public'),
            /** `GET /v1/feedback/by-project/:slug/similar?q=`: up to 5 public entries closest in meaning to `q` (`board`: one board's). */
            similar: (slug, q, board) => this.request('GET', `/v1/feedback/by-project/${seg(slug)}/similar`, undefined, { q, board }, 'public'),
            /** `GET /v1/feedback/by-project/:slug/boards`: the boards this client may see (segment boards after `identify`). */
            boards: (slug) => this.request('GET', `/v1/feedback/by-project/${seg(slug)}/boards`, undefined, undefined, 'public'),
        };
        /** Comments on public feedback entries; a project member's comment is `official`. */
        this.comments = {
            /** `GET /v1/feedback/:id/comments`: oldest first. */
            list: (feedbackId) => this.request('GET', `/v1/feedback/${seg(feedbackId)}/comments`, undefined, undefined, 'public'),
            /** `POST /v1/feedback/:id/comments` (session): 1 to 5,000 characters. The created comment. */
            add: (feedbackId, body) => this.request('POST', `/v1/feedback/${seg(feedbackId)}/comments`, { body }, undefined, 'session'),
            /** `DELETE /v1/feedback/comments/:id` (session): its author's, or any for a member. */
            delete: (commentId) => this.request('DELETE', `/v1/feedback/comments/${seg(commentId)}`, undefined, undefined, 'session'),
        };
        /** Testimonials: submitted as `pending`; only approved ones are listed. */
        this.testimonials = {
            /** `POST /v1/testimonials`: the created testimonial (status `pending`). */
            submit: (input) => this.request('POST', '/v1/testimonials', input),
            /** `GET /v1/testimonials`: a page of the approved testimonials, newest first. */
            list: (query = {}) => this.request('GET', '/v1/testimonials', undefined, pageQuery(query)),
        };
        /** Changelog: published entries. */
        this.changelog = {
            /** `GET /v1/changelog`: a page of the published entries, newest first. */
            list: (query = {}) => this.request('GET', '/v1/changelog', undefined, pageQuery(query)),
        };
        /** Knowledge base indexes. */
        this.indexes = {
            /** `POST /v1/indexes`. */
            create: (input) => this.request('POST', '/v1/indexes', input),
            /** `GET /v1/indexes`. */
            list: () => this.request('GET', '/v1/indexes'),
            /** `GET /v1/indexes/:indexId`: the index with its documents by status (a bulk load's progress is `documents_ready` of `document_count`). */
            get: (indexId) => this.request('GET', `/v1/indexes/${seg(indexId)}`),
            /** `DELETE /v1/indexes/:indexId`: the index and all its documents. */
            delete: (indexId) => this.request('DELETE', `/v1/indexes/${seg(indexId)}`),
            /** `GET /v1/indexes/models`: the embedding models and whether each is available. */
            models: () => this.request('GET', '/v1/indexes/models'),
            /**
             * `GET /v1/indexes/:indexId/analytics` (the secret key): searches, the no-result and
             * click-through rates, and the top, no-result and low-confidence queries over `period` or `from`-`to`.
             */
            analytics: (indexId, query = {}) => this.request('GET', `/v1/indexes/${seg(indexId)}/analytics`, undefined, query),
            /**
             * `GET /v1/projects/:projectId/insights/search-gaps` (a member's `sessionToken`): what people
             * searched the project's indexes for and did not find, rewordings grouped, most searched first,
             * each with the most similar public request.
             */
            gaps: (projectId, query = {}) => this.request('GET', `/v1/projects/${seg(projectId)}/insights/search-gaps`, undefined, query, 'session'),
            /** `POST /v1/projects/:projectId/insights/search-gaps/feedback`: a request made from a gap (its query as the title). */
            gapToFeedback: (projectId, query, type) => this.request('POST', `/v1/projects/${seg(projectId)}/insights/search-gaps/feedback`, { query, type }, undefined, 'session'),
        };
        /** Documents of an index; chunked and embedded by the service after upload. */
        this.documents = {
            /** `POST /v1/indexes/:indexId/documents`: the document, `pending` until embedded. */
            upload: (indexId, input) => this.request('POST', `/v1/indexes/${seg(indexId)}/documents`, input),
            /** `GET /v1/indexes/:indexId/documents`: a page, newest first. */
            list: (indexId, query = {}) => this.request('GET', `/v1/indexes/${seg(indexId)}/documents`, undefined, { page: query.page, per_page: query.perPage ?? query.per_page }),
            /** `GET /v1/indexes/:indexId/documents/:docId`: shows `status`. */
            get: (indexId, docId) => this.request('GET', `/v1/indexes/${seg(indexId)}/documents/${seg(docId)}`),
            /** `GET /v1/indexes/:indexId/documents/:docId/chunks`: the newest version's chunks, in order. */
            chunks: (indexId, docId) => this.request('GET', `/v1/indexes/${seg(indexId)}/documents/${seg(docId)}/chunks`),
            /** `DELETE /v1/indexes/:indexId/documents/:docId`: the document and its chunks. */
            delete: (indexId, docId) => this.request('DELETE', `/v1/indexes/${seg(indexId)}/documents/${seg(docId)}`),
            /**
             * `PUT /v1/indexes/:indexId/documents/by-external-id/:externalId`: creates the document, or
             * replaces its content and metadata; `chunks_reused` says how many chunks kept their vectors.
             */
            upsert: (indexId, externalId, input) => this.request('PUT', `/v1/indexes/${seg(indexId)}/documents/by-external-id/${seg(externalId)}`, input),
            /** `DELETE /v1/indexes/:indexId/documents/by-external-id/:externalId`. */
            deleteByExternalId: (indexId, externalId) => this.request('DELETE', `/v1/indexes/${seg(indexId)}/documents/by-external-id/${seg(externalId)}`),
            /** `POST /v1/indexes/:indexId/documents/batch`: 1 to 100 documents, stored all or none, answered in order. */
            uploadBatch: (indexId, documents) => this.request('POST', `/v1/indexes/${seg(indexId)}/documents/batch`, { documents }),
            /**
             * `POST /v1/indexes/:indexId/documents/file`: a Markdown, text, HTML or PDF file (up to 10 MB)
             * as multipart form data.
             */
            uploadFile: (indexId, file, options = {}) => {
                const form = new FormData();
                const name = options.filename ?? file.name ?? 'document.txt';
                form.set('file', file, name);
                if (options.metadata !== undefined)
                    form.set('metadata', JSON.stringify(options.metadata));
                if (options.external_id !== undefined)
                    form.set('external_id', options.external_id);
                return this.request('POST', `/v1/indexes/${seg(indexId)}/documents/file`, form);
            },
        };
        /** Analytics events (page views are `page_view`). */
        this.analytics = {
            /** `POST /v1/analytics/events` with one event: a name (and properties), or a whole event. */
            track: (event, properties) => {
                const body = typeof event === 'string' ? { name: event } : { ...event };
                if (properties !== undefined)
                    body.properties = properties;
                return this.request('POST', '/v1/analytics/events', body);
            },
            /** `POST /v1/analytics/events` with up to 100 events at once. */
            trackBatch: (events) => this.request('POST', '/v1/analytics/events', { events }),
            /**
             * `GET /v1/analytics/realtime` (session, members): distinct visitors of the last 5 minutes,
             * page views of the last 30 and the top 10 pages by visitors, narrowed by `filters`;
             * `{ format: 'csv' }` gives the pages as CSV text.
             */
            realtime: ((projectId, options = {}) => this.analyticsRead('realtime', projectId, options)),
            /**
             * `GET /v1/analytics/<report>` as CSV text (session, members): a header row of the JSON field
             * names, then a row per item (`data`'s rows; the overview as one row). Takes the range and filters.
             */
            csv: (report, projectId, options = {}) => this.analyticsRead(report, projectId, { ...options, format: 'csv' }),
            /**
             * `GET /v1/analytics/<report>` as JSON (session, members), for any read: the range, the filters,
             * and the report's own parameters (`property` of `properties`).
             */
            read: (report, projectId, options = {}) => this.analyticsRead(report, projectId, options),
            /**
             * `GET /v1/analytics/overview` (session, members): page views, visitors, visits, bounce rate
             * (percent) and median visit duration (seconds); `compare: 'previous'` adds the period before.
             */
            overview: (projectId, options = {}) => this.analyticsRead('overview', projectId, options),
            /** `GET /v1/analytics/entry-pages` (session, members): where visits began, by visits. */
            entryPages: (projectId, options = {}) => this.analyticsRead('entry-pages', projectId, options),
            /** `GET /v1/analytics/exit-pages` (session, members): where visits ended, by visits. */
            exitPages: (projectId, options = {}) => this.analyticsRead('exit-pages', projectId, options),
            /**
             * `GET /v1/analytics/referrers` (session, members): views and visitors per referrer host; with
             * `goal` (a goal's id), each row adds that source's conversions of it.
             */
            referrers: (projectId, options = {}) => this.analyticsRead('referrers', projectId, options),
            /**
             * `GET /v1/analytics/utm` (session, members): views and visitors per UTM source, medium and
             * campaign; with `goal`, each row adds its conversions of that goal.
             */
            utm: (projectId, options = {}) => this.analyticsRead('utm', projectId, options),
            /**
             * `GET /v1/analytics/properties` (session, members): the values of one custom property of an
             * event, each with its count and visitors.
             */
            properties: (projectId, options) => this.analyticsRead('properties', projectId, options),
            /**
             * `GET /v1/analytics/journeys` (session, members): within visits, the pages viewed right after
             * and right before `page`, most visits first (`(exit)` / `(entrance)` when the visit ended / began there).
             */
            journeys: (projectId, options) => this.analyticsRead('journeys', projectId, options),
            /** Goals (session): an event or a page; members create and delete them. */
            goals: {
                /** `POST /v1/analytics/goals`: `event` or `page`, exactly one. The created goal. */
                create: (input) => this.request('POST', '/v1/analytics/goals', input, undefined, 'session'),
                /** `GET /v1/analytics/goals`: every goal of the project with its conversions over the range. */
                list: (projectId, options = {}) => this.analyticsRead('goals', projectId, options),
                /** `DELETE /v1/analytics/goals/:id`: `{ id, deleted: true }`. */
                delete: (goalId) => this.request('DELETE', `/v1/analytics/goals/${seg(goalId)}`, undefined, undefined, 'session'),
            },
            /** Funnels (session): 2 to 8 ordered steps; members create and delete them. */
            funnels: {
                /** `POST /v1/analytics/funnels`. The created funnel. */
                create: (input) => this.request('POST', '/v1/analytics/funnels', input, undefined, 'session'),
                /** `GET /v1/analytics/funnels`: the project's funnels (their steps, no figures). */
                list: (projectId) => this.request('GET', '/v1/analytics/funnels', undefined, { project_id: projectId }, 'session'),
                /** `GET /v1/analytics/funnels/:id`: the visitors at each step over the range, filtered. */
                get: (funnelId, options = {}) => this.request('GET', `/v1/analytics/funnels/${seg(funnelId)}`, undefined, analyticsParams(options), 'session'),
                /** `DELETE /v1/analytics/funnels/:id`: `{ id, deleted: true }`. */
                delete: (funnelId) => this.request('DELETE', `/v1/analytics/funnels/${seg(funnelId)}`, undefined, undefined, 'session'),
            },
            /** Alerts (session): a traffic spike or drop, or a goal's conversions, over the last hour; members set them. */
            alerts: {
                /** `POST /v1/analytics/alerts`: `goal_id` with `kind: 'goal'` only. The created alert. */
                create: (input) => this.request('POST', '/v1/analytics/alerts', input, undefined, 'session'),
                /** `GET /v1/analytics/alerts`: the project's alerts with their last figure and whether each is going off. */
                list: (projectId) => this.request('GET', '/v1/analytics/alerts', undefined, { project_id: projectId }, 'session'),
                /** `DELETE /v1/analytics/alerts/:id`: `{ id, deleted: true }`. */
                delete: (alertId) => this.request('DELETE', `/v1/analytics/alerts/${seg(alertId)}`, undefined, undefined, 'session'),
            },
            /** Imports of Plausible's export (session): members upload and delete them. */
            imports: {
                /**
                 * `POST /v1/analytics/imports?project_id=`: the ZIP Plausible's "Export data" makes, or one of
                 * its CSV files, as multipart form data; answered `pending` (422 `unsupported_import` for a
                 * file that is no such export).
                 */
                create: (projectId, file, filename) => {
                    const form = new FormData();
                    form.set('file', file, filename ?? file.name ?? 'plausible-export.zip');
                    return this.request('POST', '/v1/analytics/imports', form, { project_id: projectId }, 'session');
                },
                /** `GET /v1/analytics/imports`: the project's imports, newest first. */
                list: (projectId) => this.request('GET', '/v1/analytics/imports', undefined, { project_id: projectId }, 'session'),
                /** `DELETE /v1/analytics/imports/:id`: removes every figure it brought; `{ id, deleted: true }`. */
                delete: (importId) => this.request('DELETE', `/v1/analytics/imports/${seg(importId)}`, undefined, undefined, 'session'),
            },
            /** Saved segments (session): members create and delete them; any read takes `segment: id`. */
            segments: {
                /** `POST /v1/analytics/segments`. The created segment. */
                create: (input) => this.request('POST', '/v1/analytics/segments', input, undefined, 'session'),
                /** `GET /v1/analytics/segments`: the project's segments, oldest first. */
                list: (projectId) => this.request('GET', '/v1/analytics/segments', undefined, { project_id: projectId }, 'session'),
                /** `DELETE /v1/analytics/segments/:id`: also revokes the share links locked to it; `{ id, deleted: true }`. */
                delete: (segmentId) => this.request('DELETE', `/v1/analytics/segments/${seg(segmentId)}`, undefined, undefined, 'session'),
            },
            /** Read-only links to the project's analytics (session; owners and admins). */
            share: {
                /** `POST /v1/projects/:projectId/analytics/share`: a new link (`url`); with `segmentId`, showing that segment only. */
                create: (projectId, options = {}) => this.request('POST', `/v1/projects/${seg(projectId)}/analytics/share`, options.segmentId ? { segment_id: options.segmentId } : undefined, undefined, 'session'),
                /** `GET /v1/projects/:projectId/analytics/share`: the links that work. */
                list: (projectId) => this.request('GET', `/v1/projects/${seg(projectId)}/analytics/share`, undefined, undefined, 'session'),
                /** `DELETE /v1/projects/:projectId/analytics/share/:id`: the link stops working at once; `{ id, deleted: true }`. */
                revoke: (projectId, linkId) => this.request('DELETE', `/v1/projects/${seg(projectId)}/analytics/share/${seg(linkId)}`, undefined, undefined, 'session'),
            },
        };
        if (!options || !options.apiKey)
            throw new TypeError('Shipmate: apiKey is required');
        if (!options.baseUrl)
            throw new TypeError('Shipmate: baseUrl is required');
        const f = options.fetch ?? (typeof fetch === 'function' ? fetch : undefined);
        if (!f)
            throw new TypeError('Shipmate: no global fetch; pass one in options.fetch (Node 18+ has one)');
        this.apiKey = options.apiKey;
        this.sessionToken = options.sessionToken;
        this.baseUrl = options.baseUrl.replace(/\/+$/, '');
        this.timeoutMs = options.timeoutMs ?? 10000;
        this.retries = Math.max(0, Math.floor(options.retries ?? 3));
        // A bare global `fetch` must be called unbound from the window object in some browsers.
        this.fetchImpl = options.fetch ? options.fetch : (input, init) => f(input, init);
    }
    /**
     * `POST /v1/auth/identify` (either key): exchanges a JWT your backend signed with the project's
     * identify secret for an end user's `eu_...` session, which this client then sends as its
     * session token: `vote`, `comment` and board submissions come from that user.
     */
    async identify(jwt) {
        const identified = await this.request('POST', '/v1/auth/identify', { token: jwt });
        this.sessionToken = identified.token;
        return identified;
    }
    /**
     * Votes on a feature request as the session's person (`identify` first, or `sessionToken`):
     * `up` (the default) or `down` replace any earlier vote, `none` withdraws it. An upvote may say
     * how much it matters (`importance`, default `nice_to_have`). The entry's votes.
     */
    vote(feedbackId, direction = 'up', importance) {
        const path = `/v1/feedback/${seg(feedbackId)}`;
        if (direction === 'none')
            return this.request('DELETE', `${path}/vote`, undefined, undefined, 'session');
        if (direction === 'down')
            return this.request('POST', `${path}/downvote`, undefined, undefined, 'session');
        return this.request('POST', `${path}/upvote`, importance ? { importance } : undefined, undefined, 'session');
    }
    /** Comments on a public entry as the session's person (`comments.add`). The created comment. */
    comment(feedbackId, body) {
        return this.comments.add(feedbackId, body);
    }
    /** An analytics read of `report` for `projectId`, as JSON or (`format: 'csv'`) CSV text. */
    analyticsRead(report, projectId, options) {
        const { format, ...rest } = options;
        const query = { project_id: projectId, ...analyticsParams(rest) };
        return format === 'csv'
            ? this.request('GET', `/v1/analytics/${report}`, undefined, query, 'session', 'text/csv')
            : this.request('GET', `/v1/analytics/${report}`, undefined, query, 'session');
    }
    /**
     * `POST /v1/indexes/:indexId/search`: the `top_k` best ready chunks, by `mode` (`vector`,
     * `keyword`, `hybrid`), narrowed by a metadata `filter`; with `highlight: true` each result's
     * `highlights` (matching passages, words in `<mark>`, the rest HTML-escaped). The answer's
     * `search_id` reports clicks (`click`).
     */
    search(indexId, input) {
        return this.request('POST', `/v1/indexes/${seg(indexId)}/search`, input);
    }
    /**
     * `POST /v1/indexes/:indexId/searches/:searchId/click`: reports that the searcher opened a result
     * (`searchId` from `search`'s answer, `position` its rank from 1), for the index's analytics.
     */
    click(indexId, searchId, documentId, position) {
        return this.request('POST', `/v1/indexes/${seg(indexId)}/searches/${seg(searchId)}/click`, { document_id: documentId, position });
    }
    answer(indexId, input, options) {
        const path = `/v1/indexes/${seg(indexId)}/answer`;
        if (!options?.stream)
            return this.request('POST', path, input);
        return new AnswerEvents(async () => (await this.send('POST', path, input, undefined, 'key', 'text/event-stream', true)).res, (problem) => new ShipmateError(Number(problem.status) || 502, problem));
    }
    /** One API call: JSON in and out (other representations, such as CSV, as their text). */
    async request(method, path, body, query, credential = 'key', accept = 'application/json') {
        const { text } = await this.send(method, path, body, query, credential, accept, false);
        return (accept !== 'application/json' ? text : text ? JSON.parse(text) : null);
    }
    /**
     * Sends until answered: a timeout per attempt (for a `stream`, until its head arrives; its body
     * is left to read), and retries of 429, 503 and network errors with exponential backoff
     * (honouring `Retry-After`). Timeouts are not retried. Failures throw `ShipmateError`.
     */
    async send(method, path, body, query, credential, accept, stream) {
        let url = this.baseUrl + path;
        if (query) {
            const qs = new URLSearchParams();
            for (const [k, v] of Object.entries(query))
                if (v !== undefined)
                    qs.set(k, String(v));
            const s = qs.toString();
            if (s)
                url += `?${s}`;
        }
        const headers = { Accept: accept };
        if (credential === 'key')
            headers['X-Project-Key'] = this.apiKey;
        else if (this.sessionToken)
            headers.Authorization = `Bearer ${this.sessionToken}`;
        else if (credential === 'session') {
            throw new TypeError(`Shipmate: ${method} ${path} is made as a person; pass options.sessionToken`);
        }
        // Form data (file uploads) goes as it is: fetch sets the multipart boundary.
        const form = typeof FormData !== 'undefined' && body instanceof FormData;
        const payload = body === undefined ? undefined : form ? body : JSON.stringify(body);
        if (payload !== undefined && !form)
            headers['Content-Type'] = 'application/json';
        for (let attempt = 0;; attempt++) {
            const last = attempt >= this.retries;
            const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt);
            const controller = new AbortController();
            let timedOut = false;
            const timer = setTimeout(() => {
                timedOut = true;
                controller.abort();
            }, this.timeoutMs);
            let res;
            let text;
            try {
                res = await this.fetchImpl(url, { method, headers, body: payload, signal: controller.signal });
                text = stream && res.ok ? '' : await res.text();
            }
            catch (cause) {
                if (timedOut) {
                    throw new ShipmateError(0, {
                        title: 'Timeout',
                        code: 'timeout',
                        detail: `${method} ${path} got no answer within ${this.timeoutMs} ms`,
                    }, undefined, { cause });
                }
                if (last) {
                    throw new ShipmateError(0, {
                        title: 'Network error',
                        code: 'network_error',
                        detail: `${method} ${path} failed: ${cause instanceof Error ? cause.message : String(cause)}`,
                    }, undefined, { cause });
                }
                await sleep(backoff);
                continue;
            }
            finally {
                clearTimeout(timer);
            }
            if (res.ok)
                return { res, text };
            const retryAfter = retryAfterSeconds(res);
            if (!last && RETRY_STATUSES.has(res.status)) {
                await sleep(retryAfter !== undefined ? Math.min(retryAfter * 1000, RETRY_AFTER_MAX_MS) : backoff);
                continue;
            }
            let problem = {};
            try {
                const parsed = text ? JSON.parse(text) : {};
                if (parsed && typeof parsed === 'object')
                    problem = parsed;
            }
            catch {
                problem = { detail: text.slice(0, 500) || undefined };
            }
            if (!problem.title)
                problem.title = res.statusText || undefined;
            throw new ShipmateError(res.status, problem, retryAfter);
        }
    }
}
// Receiving webhooks: signature verification lives in its own module (no client needed).
export { verifyWebhook, WebhookVerificationError } from './webhooks.js';
export default Shipmate;
