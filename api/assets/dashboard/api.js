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
    throw new ApiError(0, { title: 'Network error', detail: 'Could not reach the Shipmate server. Check your connection and try again.' }, key);
  }
  const text = await res.text();
  if (accept && res.ok) return text;
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch (e) { data = null; }
  }
  if (!res.ok) {
    const err = new ApiError(res.status, data, key);
    if (res.status === 429) {
      const wait = res.headers.get('Retry-After');
      if (wait) err.message += ` Try again in ${wait} s.`;
    }
    throw err;
  }
  return data;
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
