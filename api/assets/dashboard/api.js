// Shipmate dashboard: the client of the /v1 API. Calls carry the HttpOnly `shipmate_session`
// cookie (credentials: 'same-origin'); knowledge-base calls name the project in X-Project-Id, so
// the dashboard never puts the secret key in a request of its own.

export class ApiError extends Error {
  constructor(status, problem, viaKey) {
    const p = problem && typeof problem === 'object' ? problem : {};
    super(p.detail || p.title || (status ? `The server answered ${status}.` : 'The request failed.'));
    this.status = status;
    this.title = p.title || '';
    this.code = p.code || '';
    this.errors = Array.isArray(p.errors) ? p.errors.filter((e) => e && typeof e.field === 'string') : [];
    this.viaKey = Boolean(viaKey);
  }
}

/**
 * Calls the API. `key` adds X-Project-Key, `projectId` X-Project-Id; `form` sends a FormData
 * (multipart, the browser sets its boundary) instead of a JSON `body`; `accept` asks for another
 * representation (`text/csv`), whose text is the result. Resolves to the body; rejects with ApiError.
 */
export async function api(method, path, { body, form, key, projectId, accept } = {}) {
  const headers = { Accept: accept || 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (key) headers['X-Project-Key'] = key;
  else if (projectId) headers['X-Project-Id'] = projectId;
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: form || (body === undefined ? undefined : JSON.stringify(body)),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch (e) {
    throw unreachable(key);
  }
  const text = await res.text();
  if (accept && res.ok) return text;
  const data = parsed(text);
  if (!res.ok) throw refusal(res, data, key);
  return data;
}

const unreachable = (viaKey) => new ApiError(0, { title: 'Network error', detail: 'Could not reach the Shipmate server. Check your connection and try again.' }, viaKey);

function parsed(text) {
  if (!text) return null;
  try { return JSON.parse(text); } catch (e) { return null; }
}

function refusal(res, data, viaKey) {
  const err = new ApiError(res.status, data, viaKey);
  if (res.status === 429) {
    const wait = res.headers.get('Retry-After');
    if (wait) err.message += ` Try again in ${wait} s.`;
  }
  return err;
}

/**
 * Opens a Server-Sent Events answer of an API-key endpoint for `project` (a POST of `body`):
 * resolves to the response, its body still to read; rejects with ApiError.
 */
export async function keyStream(project, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method: 'POST',
      headers: { Accept: 'text/event-stream', 'Content-Type': 'application/json', 'X-Project-Id': project.id },
      body: JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch (e) {
    throw unreachable(false);
  }
  if (!res.ok) throw refusal(res, parsed(await res.text()), false);
  return res;
}

/** The events of a Server-Sent Events response as they arrive: `{ event, data }`, data parsed as JSON. */
export async function* serverSentEvents(res) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    buffer += (done ? decoder.decode() : decoder.decode(value, { stream: true })).replace(/\r/g, '');
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5).trimStart();
      }
      const value = parsed(data);
      if (value !== null) yield { event, data: value };
    }
    if (done) return;
  }
}

/**
 * A call to an API-key endpoint for `project`, made with the session and `X-Project-Id`: the
 * dashboard never puts the secret key in a request of its own.
 */
export function keyApi(project, method, path, opts = {}) {
  return api(method, path, { ...opts, projectId: project.id });
}

export const q = (params) => {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== '' && v !== undefined && v !== null) u.set(k, v);
  return u.toString();
};

/** The API's largest page: walking a whole list takes as few requests as it can. */
const MAX_PER_PAGE = 100;

/**
 * Every item of a paginated list (`{data, page, per_page, total}`), page after page until `total`
 * is reached: for views that filter or search a whole list themselves.
 */
export async function allPages(path, params = {}) {
  const items = [];
  const seen = new Set(); // an entry created mid-walk shifts the pages; it must not show twice
  for (let page = 1; ; page += 1) {
    const res = await api('GET', `${path}?${q({ ...params, page, per_page: MAX_PER_PAGE })}`);
    const data = (res && res.data) || [];
    for (const item of data) {
      if (!seen.has(item.id)) { seen.add(item.id); items.push(item); }
    }
    if (!data.length || page * MAX_PER_PAGE >= (Number(res.total) || 0)) return items;
  }
}

/** One page of a list the dashboard filtered itself, shaped like the API's pages. */
export function localPage(items, page, perPage) {
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const p = Math.min(Math.max(1, page), last);
  return { data: items.slice((p - 1) * perPage, p * perPage), page: p, per_page: perPage, total: items.length };
}
