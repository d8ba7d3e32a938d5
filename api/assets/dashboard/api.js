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

/** Calls the API. `key` adds X-Project-Key, `projectId` X-Project-Id. Resolves to the body; rejects with ApiError. */
export async function api(method, path, { body, key, projectId } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (key) headers['X-Project-Key'] = key;
  else if (projectId) headers['X-Project-Id'] = projectId;
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch (e) {
    throw new ApiError(0, { title: 'Network error', detail: 'Could not reach the Shipmate server. Check your connection and try again.' }, key);
  }
  const text = await res.text();
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
