// Shipmate dashboard: a dependency-free single-page app served at /dashboard.
// It talks to the /v1 API with the HttpOnly `shipmate_session` cookie (credentials: 'same-origin');
// knowledge-base calls add the project's API key in X-Project-Key (X-Project-Id with the session for
// members, who do not see the key). The views of accounts and teams live in auth.js, invite.js,
// account.js, members.js and admin.js, which use window.Shipmate (end of this file). The page runs
// under a strict CSP (no inline scripts or styles): every node is built with the DOM API, text goes
// in as text, and the only HTML strings are the Markdown preview's, escaped before any markup is added.
'use strict';

(() => {
  const ROOT = '/dashboard';
  const BASE = window.location.origin;

  const SECTIONS = [
    ['feedback', 'Feedback'],
    ['testimonials', 'Testimonials'],
    ['changelog', 'Changelog'],
    ['knowledge', 'Knowledge base'],
    ['analytics', 'Analytics'],
    ['settings', 'Settings'],
  ];
  // Section id -> view; members.js and webhooks.js add their own through Shipmate.registerSection.
  const SCREENS = {
    settings: screenSettings, feedback: screenFeedback, testimonials: screenTestimonials,
    changelog: screenChangelog, knowledge: screenKnowledge, analytics: screenAnalytics,
  };
  const PAGES = {}; // /dashboard/<name> -> view (account.js, admin.js)
  const PUBLIC = []; // [pattern, view]: pages without a session (auth.js)
  const FEEDBACK_TYPES = { bug: 'Bug', feature: 'Feature request', feedback: 'Feedback' };
  const STATUS_LABELS = {
    new: 'New', planned: 'Planned', in_progress: 'In progress', done: 'Done', shipped: 'Shipped',
    dismissed: 'Dismissed', cancelled: 'Cancelled', pending: 'Pending', approved: 'Approved',
    rejected: 'Rejected', ready: 'Ready', failed: 'Failed',
  };
  const STATUSES_FOR = {
    bug: ['new', 'in_progress', 'done', 'dismissed'],
    feedback: ['new', 'in_progress', 'done', 'dismissed'],
    feature: ['planned', 'in_progress', 'shipped', 'cancelled'],
  };
  const ALL_FEEDBACK_STATUSES = ['new', 'planned', 'in_progress', 'done', 'shipped', 'dismissed', 'cancelled'];
  const CHANGELOG_TYPES = { feature: 'Feature', improvement: 'Improvement', fix: 'Fix', breaking: 'Breaking change' };
  const PERIODS = [['7d', '7 days'], ['30d', '30 days'], ['90d', '90 days']];
  const MAX_DOCUMENT_BYTES = 102400;

  const state = {
    me: null,
    token: 0, // bumped on every route change; async work checks it before touching the page
    rendered: false,
    projects: new Map(), // id -> project (with api_key for owners and admins)
    models: null,
    devProbe: null,
    period: '30d',
    feedbackFilter: { type: '', status: '', sort: 'new' },
    testimonialFilter: '',
    timers: new Set(),
    onResize: null,
  };

  // ---------------------------------------------------------------- DOM helpers

  const $ = (sel, root = document) => root.querySelector(sel);

  function append(el, children) {
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      el.append(c instanceof Node ? c : String(c));
    }
    return el;
  }

  /** Creates an element. `attrs` keys: class, text, on<event>, boolean properties, else attributes. */
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    let value;
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = v;
      else if (k === 'value') value = v;
      else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (['checked', 'disabled', 'selected', 'readOnly', 'required', 'multiple'].includes(k)) el[k] = Boolean(v);
      else if (k === 'style') throw new Error('inline styles are blocked by the CSP');
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    append(el, children);
    if (value !== undefined) el.value = value; // after children, so a <select> has its options
    return el;
  }

  const SVG_NS = 'http://www.w3.org/2000/svg';
  function svg(tag, attrs, ...children) {
    const el = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null) el.setAttribute(k, String(v));
    }
    return append(el, children);
  }

  function esc(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  }

  const numberFmt = new Intl.NumberFormat('en');
  const fmtNum = (n) => (typeof n === 'number' && Number.isFinite(n) ? numberFmt.format(n) : '0');

  function fmtDate(iso) {
    if (!iso) return '';
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? '' : d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
  }

  function timeEl(iso) {
    return iso ? h('time', { datetime: iso, title: new Date(iso).toLocaleString() }, fmtDate(iso)) : null;
  }

  function statusLabel(s) {
    return STATUS_LABELS[s] || String(s || '').replace(/_/g, ' ');
  }

  /** A class suffix from a known value; anything unexpected gets a neutral style. */
  function cls(value) {
    return /^[a-z_]+$/.test(String(value)) ? String(value) : 'other';
  }

  function badge(kind, value, label) {
    return h('span', { class: `badge ${kind}-${cls(value)}` }, label);
  }

  function plural(n, one, many) {
    return `${fmtNum(n)} ${n === 1 ? one : many}`;
  }

  function isHttpUrl(u) {
    return typeof u === 'string' && /^https?:\/\/[^\s]+$/i.test(u);
  }

  /** The tail of a UUID: v7 identifiers made close together share their leading (time) digits. */
  function shortId(id) {
    const s = String(id || '');
    return s.length > 8 ? `\u2026${s.slice(-8)}` : s;
  }

  let uid = 0;
  const nextId = (prefix) => `${prefix}-${++uid}`;

  // ---------------------------------------------------------------- API

  class ApiError extends Error {
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
  async function api(method, path, { body, key, projectId } = {}) {
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
  function keyApi(project, method, path, opts = {}) {
    return api(method, path, { ...opts, projectId: project.id });
  }

  const q = (params) => {
    const u = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== '' && v !== undefined && v !== null) u.set(k, v);
    return u.toString();
  };

  // ---------------------------------------------------------------- status, errors, confirm

  let toastTimer = 0;
  function announce(message) {
    const el = $('#status');
    el.textContent = '';
    // A fresh text node after clearing makes screen readers announce a repeated message too.
    window.setTimeout(() => { el.textContent = message; }, 30);
    window.clearTimeout(toastTimer);
    toastTimer = window.setTimeout(() => { if (el.textContent === message) el.textContent = ''; }, 5000);
  }

  function hideBanner() {
    $('#banner').classList.add('hidden');
  }

  /** Shows an API problem (or any error) in the banner at the top of the page. */
  function showError(err, title) {
    if (handleAuthLoss(err)) return;
    const e = err instanceof ApiError ? err : new ApiError(0, { detail: String((err && err.message) || err) });
    $('#banner-title').textContent = title || e.title || 'Something went wrong';
    const suffix = e.status ? ` (HTTP ${e.status}${e.code ? `, ${e.code}` : ''})` : '';
    $('#banner-detail').textContent = `${capitalize(e.message)}${suffix}`;
    $('#banner-list').replaceChildren(...e.errors.map((fe) => h('li', null, `${fe.field}: ${fe.message}`)));
    const banner = $('#banner');
    banner.classList.remove('hidden');
    banner.scrollIntoView({ block: 'nearest' });
  }

  /** A 401 on a session call means the cookie is gone or revoked: back to sign-in. */
  function handleAuthLoss(err) {
    if (err instanceof ApiError && err.status === 401 && !err.viaKey) {
      state.me = null;
      state.projects.clear();
      renderSignIn('Your session has ended. Please sign in again.');
      return true;
    }
    return false;
  }

  function capitalize(s) {
    s = String(s || '');
    return s ? s[0].toUpperCase() + s.slice(1) : s;
  }

  function clearFormErrors(form) {
    form.querySelectorAll('[data-err-for]').forEach((el) => { el.textContent = ''; });
    form.querySelectorAll('[aria-invalid]').forEach((el) => el.removeAttribute('aria-invalid'));
    const fe = form.querySelector('.form-err');
    if (fe) fe.textContent = '';
  }

  function setFieldError(form, field, message) {
    const slot = form.querySelector(`[data-err-for="${CSS.escape(field)}"]`);
    if (!slot) return null;
    const label = slot.getAttribute('data-label') || '';
    slot.textContent = label && /^(is|must|should|cannot|can't|has|was)\b/i.test(message) ? `${label} ${message}` : capitalize(message);
    const input = form.querySelector(`[name="${CSS.escape(field)}"]`);
    if (input) input.setAttribute('aria-invalid', 'true');
    return input || slot;
  }

  /**
   * Shows a failed submission inside its form: `errors[]` next to their fields, anything else
   * (409 `detail`, unknown fields) in the form's message line. `conflictField` routes a 409 there.
   */
  function showFormError(form, err, { conflictField } = {}) {
    if (handleAuthLoss(err)) return;
    if (!(err instanceof ApiError)) { showError(err); return; }
    clearFormErrors(form);
    let first = null;
    const leftovers = [];
    for (const fe of err.errors) {
      const target = setFieldError(form, fe.field, fe.message);
      if (target) first = first || target;
      else leftovers.push(`${fe.field}: ${fe.message}`);
    }
    if (!err.errors.length && err.status === 409 && conflictField) {
      first = setFieldError(form, conflictField, err.message);
    }
    const formErr = form.querySelector('.form-err');
    const shownInline = first && !leftovers.length;
    if (!shownInline) {
      const msg = leftovers.length ? leftovers.join('; ') : capitalize(err.message);
      if (formErr) formErr.textContent = msg;
      else showError(err);
    }
    if (first && typeof first.focus === 'function') first.focus();
    else if (formErr) formErr.scrollIntoView({ block: 'nearest' });
  }

  function confirmDialog({ title, text, ok = 'Confirm', danger = true }) {
    const dlg = $('#confirm');
    if (typeof dlg.showModal !== 'function') return Promise.resolve(window.confirm(`${title}\n\n${text}`));
    $('#confirm-title').textContent = title;
    $('#confirm-text').textContent = text;
    const okBtn = $('#confirm-ok');
    okBtn.textContent = ok;
    okBtn.className = danger ? 'button-danger' : '';
    dlg.returnValue = '';
    return new Promise((resolve) => {
      dlg.addEventListener('close', () => resolve(dlg.returnValue === 'ok'), { once: true });
      dlg.showModal();
      $('#confirm-cancel').focus();
    });
  }

  /** Disables a button while `fn` runs. */
  async function busy(button, fn) {
    if (button) { button.disabled = true; button.setAttribute('aria-busy', 'true'); }
    try {
      return await fn();
    } finally {
      if (button && button.isConnected) { button.disabled = false; button.removeAttribute('aria-busy'); }
    }
  }

  async function copyText(text, what) {
    try {
      await navigator.clipboard.writeText(text);
      announce(`${what} copied to the clipboard.`);
      return;
    } catch (e) {
      // Fall back to a selection copy (older browsers, or clipboard permission refused).
    }
    const ta = h('textarea', { class: 'sr-only', readonly: 'readonly', 'aria-hidden': 'true', tabindex: '-1', value: text });
    document.body.append(ta);
    ta.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
    ta.remove();
    announce(ok ? `${what} copied to the clipboard.` : `Could not copy automatically: select the ${what.toLowerCase()} and copy it by hand.`);
  }

  function later(fn, ms) {
    const id = window.setTimeout(() => { state.timers.delete(id); fn(); }, ms);
    state.timers.add(id);
    return id;
  }

  function stopTimers() {
    for (const id of state.timers) window.clearTimeout(id);
    state.timers.clear();
  }

  // ---------------------------------------------------------------- form building blocks

  /** A labelled control with hint and error slots wired through aria-describedby. */
  function field({ id, label, control, hint, name, className }) {
    control.id = id;
    const fieldName = name || control.getAttribute('name') || id;
    if (!control.getAttribute('name')) control.setAttribute('name', fieldName);
    const hintId = hint ? `${id}-hint` : null;
    const errId = `${id}-err`;
    control.setAttribute('aria-describedby', [hintId, errId].filter(Boolean).join(' '));
    return h('div', { class: `field${className ? ` ${className}` : ''}` },
      h('label', { for: id }, label),
      control,
      hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
      h('p', { class: 'field-err', id: errId, 'data-err-for': fieldName, 'data-label': typeof label === 'string' ? label.replace(/\s*\(.*\)$/, '') : '' }));
  }

  function options(pairs, current) {
    return pairs.map(([value, label]) => h('option', { value, selected: value === current }, label));
  }

  function formErr() {
    return h('p', { class: 'form-err', role: 'alert' });
  }

  /**
   * The notice shown wherever the dashboard would otherwise promise an email (invitations, notifications,
   * the admin page) while the server has no SMTP settings; `extra` says what to do meanwhile.
   */
  function emailOffNotice(id, extra) {
    return h('div', { class: 'notice email-off', id, role: 'note' },
      h('p', null, h('strong', null, 'Email is not configured: set SHIPMATE_SMTP_URL and SHIPMATE_MAIL_FROM'), ' on the server to send email.'),
      extra ? h('p', null, extra) : null);
  }

  // ---------------------------------------------------------------- Markdown (safe subset)

  /**
   * Headings, paragraphs, lists, fenced code, `code`, **bold**, *italics* and [links](https://...).
   * Every piece of source text is HTML-escaped before markup is added; links keep only http(s) URLs.
   */
  function renderMarkdown(src) {
    const lines = String(src || '').replace(/\u0000/g, '').replace(/\r\n?/g, '\n').split('\n');
    const out = [];
    let para = [];
    let list = null;
    const flushPara = () => {
      if (para.length) out.push(`<p>${para.map(inline).join('<br>')}</p>`);
      para = [];
    };
    const flushList = () => {
      if (list) out.push(`<${list.type}>${list.items.map((t) => `<li>${inline(t)}</li>`).join('')}</${list.type}>`);
      list = null;
    };
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      const fence = line.match(/^\s*(`{3,}|~{3,})/);
      if (fence) {
        flushPara(); flushList();
        const code = [];
        i++;
        while (i < lines.length && !lines[i].trim().startsWith(fence[1])) code.push(lines[i++]);
        out.push(`<pre><code>${esc(code.join('\n'))}</code></pre>`);
        continue;
      }
      const heading = line.match(/^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/);
      if (heading) {
        flushPara(); flushList();
        const level = Math.min(6, heading[1].length + 2); // the page already has h1 and h2
        out.push(`<h${level}>${inline(heading[2])}</h${level}>`);
        continue;
      }
      const ul = line.match(/^\s*[-*+]\s+(.*)$/);
      const ol = ul ? null : line.match(/^\s*\d{1,9}[.)]\s+(.*)$/);
      if (ul || ol) {
        flushPara();
        const type = ul ? 'ul' : 'ol';
        if (list && list.type !== type) flushList();
        if (!list) list = { type, items: [] };
        list.items.push((ul || ol)[1]);
        continue;
      }
      if (!line.trim()) { flushPara(); flushList(); continue; }
      if (list && /^\s{2,}\S/.test(line)) {
        list.items[list.items.length - 1] += ` ${line.trim()}`;
        continue;
      }
      flushList();
      para.push(line.trim());
    }
    flushPara(); flushList();
    return out.join('\n');
  }

  function inline(text) {
    const stash = [];
    const keep = (html) => `\u0000${stash.push(html) - 1}\u0000`;
    let s = String(text);
    s = s.replace(/`([^`\n]+)`/g, (_, code) => keep(`<code>${esc(code)}</code>`));
    s = s.replace(/\[([^\]\n]+)\]\(\s*([^()\s]+)(?:\s+"[^"\n]*")?\s*\)/g, (_, label, url) => {
      const inner = emphasis(esc(label));
      if (isHttpUrl(url)) return keep(`<a href="${esc(url)}" rel="noopener noreferrer nofollow" target="_blank">${inner}</a>`);
      return keep(inner); // other schemes (javascript:, data:, relative) keep only their text
    });
    s = emphasis(esc(s));
    for (let k = 0; k < 3 && s.includes('\u0000'); k++) {
      s = s.replace(/\u0000(\d+)\u0000/g, (_, n) => stash[Number(n)] || '');
    }
    return s;
  }

  function emphasis(s) {
    return s
      .replace(/\*\*(?=\S)([^*]+?)\*\*/g, '<strong>$1</strong>')
      .replace(/__(?=\S)([^_]+?)__/g, '<strong>$1</strong>')
      .replace(/(^|[^\w*])\*(?=\S)([^*\n]+?)\*(?![\w*])/g, '$1<em>$2</em>')
      .replace(/(^|[^\w_])_(?=\S)([^_\n]+?)_(?![\w_])/g, '$1<em>$2</em>');
  }

  // ---------------------------------------------------------------- shell: account, nav, routing

  function renderAccount() {
    const box = $('#account');
    if (!state.me) { box.replaceChildren(); return; }
    const who = state.me.name && state.me.name.trim() ? `${state.me.name} (${state.me.email})` : state.me.email;
    box.replaceChildren(
      h('a', { class: 'account-link', id: 'account-link', href: `${ROOT}/account`, 'data-nav': '', title: who },
        h('span', { class: 'account-email' }, state.me.email), h('span', { class: 'account-short' }, 'Account')),
      state.me.is_admin ? h('a', { class: 'account-link', id: 'admin-link', href: `${ROOT}/admin`, 'data-nav': '' }, 'Admin') : '',
      h('button', { type: 'button', class: 'button-secondary button-small', id: 'sign-out', onclick: signOut }, 'Sign out'),
    );
  }

  async function signOut(ev) {
    const btn = ev && ev.currentTarget;
    await busy(btn, async () => {
      try {
        await api('POST', '/v1/auth/logout');
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 401)) { showError(e, 'Could not sign out'); return; }
      }
      state.me = null;
      state.projects.clear();
      history.pushState(null, '', ROOT);
      renderSignIn('You have signed out.');
    });
  }

  function renderNav(project, section) {
    const nav = $('#sidenav');
    closeNav();
    if (!project) {
      document.body.classList.remove('has-nav');
      nav.replaceChildren();
      return;
    }
    document.body.classList.add('has-nav');
    document.body.setAttribute('data-role', project.role || 'owner'); // app.css hides write controls from viewers
    nav.replaceChildren(
      h('a', { class: 'nav-back', href: ROOT, 'data-nav': '' }, '\u2190 All projects'),
      h('div', { class: 'nav-project' }, h('strong', null, project.name), h('span', null, `/${project.slug}`)),
      h('ul', null, SECTIONS.filter((s) => mayOpen(project, s)).map(([id, label]) => h('li', null,
        h('a', { href: `${ROOT}/p/${encodeURIComponent(project.id)}/${id}`, 'data-nav': '', 'aria-current': id === section ? 'page' : null }, label)))),
    );
  }

  /** A section registered with `roles` (webhooks: owners and admins) is listed only for those roles. */
  function mayOpen(project, [, , roles]) {
    return !roles || roles.includes(project.role || (project.api_key ? 'owner' : 'viewer'));
  }

  function closeNav() {
    $('#sidenav').classList.remove('open');
    $('#nav-toggle').setAttribute('aria-expanded', 'false');
  }

  function setMain(...nodes) {
    const main = $('#main');
    main.replaceChildren(...nodes.flat().filter(Boolean));
    main.removeAttribute('aria-busy');
    if (state.rendered) {
      const h1 = $('h1', main);
      (h1 || main).focus({ preventScroll: true });
      window.scrollTo(0, 0);
    }
    state.rendered = true;
  }

  function setLoading(text) {
    const main = $('#main');
    main.setAttribute('aria-busy', 'true');
    main.replaceChildren(h('p', { class: 'loading' }, text || 'Loading\u2026'));
  }

  function setTitle(...parts) {
    document.title = [...parts.filter(Boolean), 'Shipmate'].join(' \u00b7 ');
  }

  function pageHead(title, subtitle, project, ...actions) {
    return h('div', { class: 'page-head' },
      h('div', null,
        project ? h('p', { class: 'eyebrow' }, project.name) : null,
        h('h1', { tabindex: '-1' }, title),
        subtitle ? h('p', { class: 'muted' }, subtitle) : null),
      actions.length ? h('div', { class: 'head-actions' }, actions) : null);
  }

  function parseRoute(pathname) {
    const p = pathname.replace(/\/+$/, '');
    if (p === ROOT || p === '') return { name: 'projects' };
    const page = p.match(/^\/dashboard\/([a-z]+)$/);
    if (page && PAGES[page[1]]) return { name: 'page', page: page[1] };
    const m = p.match(/^\/dashboard\/p\/([^/]+)(?:\/([a-z]+))?(?:\/([^/]+))?$/);
    if (m) {
      return {
        name: 'project',
        projectId: decodeURIComponent(m[1]),
        section: m[2] || '',
        sub: m[3] ? decodeURIComponent(m[3]) : null,
      };
    }
    return { name: 'notfound' };
  }

  function navigate(path, { replace = false } = {}) {
    if (replace) history.replaceState(null, '', path);
    else history.pushState(null, '', path);
    render();
  }

  function projectPath(project, section, sub) {
    return `${ROOT}/p/${encodeURIComponent(project.id)}/${section}${sub ? `/${encodeURIComponent(sub)}` : ''}`;
  }

  /** Is the screen that started some async work still the one on display? */
  function aliveFn(token) {
    return () => token === state.token;
  }

  async function render() {
    const token = ++state.token;
    const alive = aliveFn(token);
    stopTimers();
    state.onResize = null;
    hideBanner();
    const pub = publicPage(window.location.pathname);
    if (pub) {
      renderAccount();
      renderNav(null);
      await pub.view({ alive, match: pub.match, params: new URLSearchParams(window.location.search) });
      return;
    }
    if (!state.me) { renderSignIn(); return; }
    const route = parseRoute(window.location.pathname);
    if (route.name === 'projects') { await screenProjects(alive); return; }
    if (route.name === 'page') { renderNav(null); await PAGES[route.page]({ alive }); return; }
    if (route.name === 'notfound') { screenNotFound('There is nothing at this address.'); return; }

    const known = state.projects.get(route.projectId);
    if (!known) setLoading('Loading project\u2026');
    let project;
    try {
      project = known || (await loadProject(route.projectId));
    } catch (e) {
      if (!alive()) return;
      if (handleAuthLoss(e)) return;
      if (e instanceof ApiError && [403, 404, 422].includes(e.status)) {
        screenNotFound('This project does not exist, or it belongs to another account.');
      } else {
        renderNav(null);
        setMain(pageHead('Could not load the project'), h('p', null, h('a', { href: ROOT, 'data-nav': '' }, 'Back to your projects')));
        showError(e, 'Could not load the project');
      }
      return;
    }
    if (!alive()) return;
    const section = SECTIONS.some(([id]) => id === route.section) ? route.section : null;
    if (!section) { navigate(projectPath(project, 'feedback'), { replace: true }); return; }
    renderNav(project, section);
    const ctx = { project, alive, sub: route.sub };
    await SCREENS[section](ctx);
  }

  function publicPage(pathname) {
    for (const [pattern, view] of PUBLIC) {
      const match = pathname.match(pattern);
      if (match) return { match, view };
    }
    return null;
  }

  async function loadProject(id) {
    const p = await api('GET', `/v1/projects/${encodeURIComponent(id)}`);
    state.projects.set(p.id, p);
    return p;
  }

  function screenNotFound(text) {
    renderNav(null);
    setTitle('Not found');
    setMain(
      pageHead('Not found'),
      h('section', { class: 'card' }, h('p', null, text), h('p', null, h('a', { href: ROOT, 'data-nav': '' }, 'Go to your projects'))),
    );
  }

  // ---------------------------------------------------------------- sign-in

  function devLoginEnabled() {
    // `{}` rather than no body: the endpoint answers 404 when dev login is off, and 422 (email
    // missing) when it is on. It never signs anyone in.
    if (!state.devProbe) {
      state.devProbe = fetch('/v1/auth/dev-login', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: '{}',
        credentials: 'same-origin',
      }).then((r) => r.status !== 404, () => false);
    }
    return state.devProbe;
  }

  /** No session: the sign-in page (auth.js, at /login) takes over and comes back here afterwards. */
  function renderSignIn(message) {
    if (!publicPage(window.location.pathname)) {
      const here = window.location.pathname + window.location.search;
      const back = here.replace(/\/+$/, '') === ROOT ? '' : `?${q({ next: here })}`;
      history.replaceState(null, '', `/login${back}`);
    }
    state.flash = message || '';
    if (publicPage(window.location.pathname)) render();
    else setMain(h('p', { class: 'card' }, 'The sign-in page could not be loaded. Please reload the page.'));
  }

  // ---------------------------------------------------------------- projects

  function slugify(s) {
    return String(s).toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '')
      .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48).replace(/-+$/g, '');
  }

  async function screenProjects(alive) {
    renderNav(null);
    setTitle('Projects');
    const listBox = h('div', { 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading projects\u2026'));
    setMain(
      pageHead('Projects', 'Each project has its own API key, feedback board, testimonials, changelog, knowledge base and analytics.'),
      h('div', { class: 'grid-2' },
        h('section', { 'aria-labelledby': 'projects-title' }, h('h2', { id: 'projects-title' }, 'Your projects'), listBox),
        createProjectCard()),
    );
    let projects;
    try {
      projects = (await api('GET', '/v1/projects')).data || [];
    } catch (e) {
      if (!alive()) return;
      listBox.replaceChildren(h('p', { class: 'muted' }, 'Projects could not be loaded.'));
      showError(e, 'Could not load your projects');
      return;
    }
    if (!alive()) return;
    listBox.removeAttribute('aria-busy');
    for (const p of projects) state.projects.set(p.id, p);
    if (!projects.length) {
      listBox.replaceChildren(h('div', { class: 'card empty' }, h('p', null, 'No projects yet. Create your first one to get an API key.')));
      return;
    }
    listBox.replaceChildren(h('ul', { class: 'records', id: 'project-list' }, projects.map((p) => h('li', { class: 'card project-card', 'data-project': p.id },
      h('div', { class: 'record-main' },
        h('a', { class: 'project-link', href: projectPath(p, 'feedback'), 'data-nav': '' }, p.name),
        h('p', { class: 'meta' }, h('span', { class: 'mono' }, `/${p.slug}`), p.role && p.role !== 'owner' ? badge('role', p.role, capitalize(p.role)) : null,
          p.created_at ? h('span', null, 'Created ', timeEl(p.created_at)) : null)),
      h('a', { class: 'button button-secondary button-small', href: projectPath(p, 'settings'), 'data-nav': '', 'aria-label': `Settings of ${p.name}` }, 'Settings')))));
  }

  function createProjectCard() {
    const name = h('input', { type: 'text', name: 'name', autocomplete: 'off', maxlength: '100' });
    const slug = h('input', { type: 'text', name: 'slug', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off', maxlength: '48' });
    let slugEdited = false;
    name.addEventListener('input', () => { if (!slugEdited) slug.value = slugify(name.value); });
    slug.addEventListener('input', () => { slugEdited = slug.value.trim() !== ''; });
    const submit = h('button', { type: 'submit' }, 'Create project');
    const form = h('form', { id: 'create-project', novalidate: '' },
      field({ id: 'project-name', label: 'Project name', control: name }),
      field({ id: 'project-slug', label: 'Slug', control: slug, hint: 'Used in public addresses like /f/your-slug: 3 to 48 lowercase letters, digits and hyphens.' }),
      formErr(),
      submit);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      clearFormErrors(form);
      await busy(submit, async () => {
        let project;
        try {
          project = await api('POST', '/v1/projects', { body: { name: name.value, slug: slug.value.trim() } });
        } catch (e) {
          showFormError(form, e, { conflictField: 'slug' });
          return;
        }
        state.projects.set(project.id, project);
        announce(`Project \u201c${project.name}\u201d created.`);
        navigate(projectPath(project, 'settings'));
      });
    });
    return h('section', { class: 'card', 'aria-labelledby': 'create-project-title' },
      h('h2', { id: 'create-project-title' }, 'Create a project'),
      form);
  }

  // ---------------------------------------------------------------- settings

  function snippetBlock(id, label, code, buttonText) {
    return h('div', null,
      h('pre', { class: 'code-block', id, tabindex: '0', 'aria-label': label }, h('code', null, code)),
      h('button', { type: 'button', class: 'button-secondary button-small', onclick: () => copyText(code, label) }, buttonText));
  }

  async function screenSettings(ctx) {
    const { alive } = ctx;
    let project = ctx.project;
    try {
      project = await loadProject(project.id); // fresh: the key may have been rotated elsewhere
    } catch (e) {
      if (!alive()) return;
      showError(e, 'Could not refresh the project');
    }
    if (!alive()) return;
    setTitle('Settings', project.name);

    const key = project.api_key; // the secret key: owners and admins only
    const publishable = project.publishable_key;
    const scriptTag = `<script defer data-project="${publishable}" data-api="${BASE}" src="${BASE}/sdk/sm.js"></script>`;
    const sdk = `import { Shipmate } from '@shipmate/sdk';\n\n// In browser code: the publishable key.\nconst sm = new Shipmate({ apiKey: '${publishable}', baseUrl: '${BASE}' });\n\n// On your server: the secret key, from the environment.\nconst server = new Shipmate({ apiKey: process.env.SHIPMATE_API_KEY, baseUrl: '${BASE}' });`;
    const pubInput = h('input', { type: 'text', id: 'publishable-key', readOnly: true, value: publishable, spellcheck: 'false', 'aria-describedby': 'publishable-key-hint' });
    pubInput.addEventListener('focus', () => pubInput.select());
    // The secret key stays masked until revealed: it must never end up in a screenshot or a page.
    const keyInput = h('input', { type: 'password', id: 'api-key', readOnly: true, value: key, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'api-key-hint' });
    keyInput.addEventListener('focus', () => keyInput.select());
    const revealBtn = h('button', { type: 'button', class: 'button-secondary', id: 'reveal-key', 'aria-pressed': 'false' }, 'Reveal');
    revealBtn.addEventListener('click', () => {
      const hidden = keyInput.type === 'password';
      keyInput.type = hidden ? 'text' : 'password';
      revealBtn.textContent = hidden ? 'Hide' : 'Reveal';
      revealBtn.setAttribute('aria-pressed', String(hidden));
    });
    const idInput = h('input', { type: 'text', id: 'project-id', readOnly: true, value: project.id, spellcheck: 'false' });

    const rotateButton = (id, which, path, focusId) => {
      const btn = h('button', { type: 'button', class: 'button-secondary', id }, 'Rotate key');
      btn.addEventListener('click', async () => {
        const ok = await confirmDialog({
          title: `Rotate the ${which}?`,
          text: 'A new key is issued and the current one stops working immediately. Sites, apps and scripts using it must be updated.',
          ok: 'Rotate key',
        });
        if (!ok) return;
        await busy(btn, async () => {
          try {
            const p = await api('POST', `/v1/projects/${encodeURIComponent(project.id)}/${path}`);
            state.projects.set(p.id, p);
            if (!alive()) return;
            announce(`New ${which} issued. The old key no longer works.`);
            await screenSettings({ ...ctx, project: p });
            const k = $(`#${focusId}`);
            if (k) k.focus();
          } catch (e) {
            showError(e, 'Could not rotate the key');
          }
        });
      });
      return btn;
    };
    const rotateBtn = rotateButton('rotate-key', 'secret API key', 'api-key/rotate', 'api-key');
    const rotatePubBtn = rotateButton('rotate-publishable', 'publishable key', 'publishable-key/rotate', 'publishable-key');
    const canRotate = project.role === 'owner' || project.role === 'admin';

    const deleteBtn = h('button', { type: 'button', class: 'button-danger', id: 'delete-project' }, 'Delete project');
    deleteBtn.addEventListener('click', async () => {
      const ok = await confirmDialog({
        title: `Delete \u201c${project.name}\u201d?`,
        text: 'Its feedback, testimonials, changelog, knowledge base and analytics are deleted for good, and its API key stops working. This cannot be undone.',
        ok: 'Delete project',
      });
      if (!ok) return;
      await busy(deleteBtn, async () => {
        try {
          await api('DELETE', `/v1/projects/${encodeURIComponent(project.id)}`);
        } catch (e) {
          showError(e, 'Could not delete the project');
          return;
        }
        state.projects.delete(project.id);
        announce(`Project \u201c${project.name}\u201d deleted.`);
        navigate(ROOT);
      });
    });

    const pages = [
      ['Feedback board', `/f/${project.slug}`],
      ['Testimonial form', `/t/${project.slug}`],
      ['Public changelog', `/c/${project.slug}`],
    ];

    setMain(
      pageHead('Settings', null, project),
      h('section', { class: 'card', 'aria-labelledby': 'pub-key-title' },
        h('h2', { id: 'pub-key-title' }, 'Publishable key'),
        h('p', { class: 'muted', id: 'publishable-key-hint' }, 'For browser code and every snippet below: it sends feedback, testimonials and analytics events and reads approved testimonials and published changelog entries, nothing more. Anyone who has it can submit data to this project, within the per-visitor rate limits.'),
        h('div', { class: 'field' },
          h('label', { for: 'publishable-key' }, 'Publishable key'),
          h('div', { class: 'copy-row' }, pubInput,
            h('button', { type: 'button', class: 'button-secondary', id: 'copy-publishable', onclick: () => copyText($('#publishable-key').value, 'Publishable key') }, 'Copy'))),
        canRotate ? h('div', { class: 'button-row' }, rotatePubBtn) : null),
      h('section', { class: 'card', 'aria-labelledby': 'key-title' },
        h('h2', { id: 'key-title' }, 'Secret API key'),
        h('p', { class: 'muted', id: 'api-key-hint' }, 'Server-side only: it can do everything, including deleting documents and reading the knowledge base. Keep it in your server\u2019s environment; never put it in a web page, an app or a snippet.'),
        key ? h('div', { class: 'field' },
          h('label', { for: 'api-key' }, 'Secret API key'),
          h('div', { class: 'copy-row' }, keyInput, revealBtn,
            h('button', { type: 'button', class: 'button-secondary', id: 'copy-key', onclick: () => copyText($('#api-key').value, 'Secret API key') }, 'Copy')))
          : h('p', { id: 'api-key-hidden' }, 'Only owners and admins see the API key.'),
        key ? h('div', { class: 'button-row' }, rotateBtn) : null),
      h('section', { class: 'card', 'aria-labelledby': 'script-title' },
        h('h2', { id: 'script-title' }, 'Analytics script'),
        h('p', { class: 'muted' }, 'Paste this into the <head> of every page to count page views (cookie-free, respects Do Not Track). Custom events: sm(\'signup\', { plan: \'pro\' }).'),
        snippetBlock('script-snippet', 'Script tag', scriptTag, 'Copy script tag')),
      h('section', { class: 'card', 'aria-labelledby': 'sdk-title' },
        h('h2', { id: 'sdk-title' }, 'JavaScript SDK'),
        h('p', { class: 'muted' }, 'For feedback forms, testimonials and search from your own code.'),
        snippetBlock('sdk-snippet', 'SDK snippet', sdk, 'Copy SDK snippet')),
      h('section', { class: 'card', 'aria-labelledby': 'pages-title' },
        h('h2', { id: 'pages-title' }, 'Public pages'),
        h('ul', { class: 'link-list', id: 'public-pages' }, pages.map(([label, path]) => h('li', null,
          h('span', null, label),
          h('a', { href: path, target: '_blank', rel: 'noopener' }, `${BASE}${path}`)))),
        h('div', { class: 'field' },
          h('label', { for: 'project-id' }, 'Project ID'),
          h('div', { class: 'copy-row' }, idInput,
            h('button', { type: 'button', class: 'button-secondary', onclick: () => copyText(project.id, 'Project ID') }, 'Copy')),
          h('p', { class: 'hint' }, 'The project_id of dashboard API calls and the CLI.'))),
      project.role && project.role !== 'owner' ? null : h('section', { class: 'card danger-zone', 'aria-labelledby': 'danger-title' },
        h('h2', { id: 'danger-title' }, 'Delete this project'),
        h('p', { class: 'muted' }, 'Removes the project and everything in it, for good.'),
        deleteBtn),
    );
  }

  // ---------------------------------------------------------------- feedback

  async function screenFeedback(ctx) {
    const { project, alive } = ctx;
    setTitle('Feedback', project.name);
    const f = state.feedbackFilter;
    const count = h('p', { class: 'muted', id: 'feedback-count', 'aria-live': 'polite' });
    const listBox = h('div');
    const typeSel = h('select', { name: 'type', value: f.type },
      options([['', 'All types'], ...Object.entries(FEEDBACK_TYPES)], f.type));
    const statusSel = h('select', { name: 'status', value: f.status },
      options([['', 'All statuses'], ...ALL_FEEDBACK_STATUSES.map((s) => [s, statusLabel(s)])], f.status));
    const sortSel = h('select', { name: 'sort', value: f.sort }, options([['new', 'Newest first'], ['top', 'Top voted']], f.sort));
    const filters = h('form', { class: 'card filters', role: 'search', 'aria-label': 'Filter feedback' },
      field({ id: 'fb-filter-type', label: 'Type', control: typeSel }),
      field({ id: 'fb-filter-status', label: 'Status', control: statusSel }),
      field({ id: 'fb-filter-sort', label: 'Sort', control: sortSel }));
    filters.addEventListener('submit', (ev) => ev.preventDefault());
    filters.addEventListener('change', () => {
      f.type = typeSel.value; f.status = statusSel.value; f.sort = sortSel.value;
      load();
    });

    setMain(
      pageHead('Feedback', null, project, h('a', { class: 'button button-secondary', href: `/f/${project.slug}`, target: '_blank', rel: 'noopener' }, 'Open public board')),
      filters, count, listBox);

    let entries = [];
    const updateCount = () => {
      const filtered = f.type || f.status;
      count.textContent = `${plural(entries.length, 'entry', 'entries')}${filtered ? ' matching these filters' : ''}`;
    };

    async function load() {
      listBox.setAttribute('aria-busy', 'true');
      try {
        const res = await api('GET', `/v1/feedback?${q({ project_id: project.id, type: f.type, status: f.status, sort: f.sort })}`);
        if (!alive()) return;
        entries = res.data || [];
      } catch (e) {
        if (!alive()) return;
        listBox.removeAttribute('aria-busy');
        showError(e, 'Could not load feedback');
        return;
      }
      listBox.removeAttribute('aria-busy');
      updateCount();
      if (!entries.length) {
        listBox.replaceChildren(h('div', { class: 'card empty' }, h('p', null,
          f.type || f.status ? 'No feedback matches these filters.' : 'No feedback yet. Entries sent with the SDK or the API show up here.')));
        return;
      }
      listBox.replaceChildren(h('ul', { class: 'records', id: 'feedback-list' }, entries.map(entryItem)));
    }

    function entryItem(e) {
      const statuses = [...(STATUSES_FOR[e.type] || [])];
      if (!statuses.includes(e.status)) statuses.unshift(e.status);
      const selId = `fb-status-${e.id}`;
      const statusBadge = badge('status', e.status, statusLabel(e.status));
      statusBadge.setAttribute('data-status-badge', '');
      const sel = h('select', { id: selId, name: 'status', value: e.status }, options(statuses.map((s) => [s, statusLabel(s)]), e.status));
      let current = e.status;
      sel.addEventListener('change', async () => {
        const next = sel.value;
        sel.disabled = true;
        try {
          const updated = await api('PATCH', `/v1/feedback/${encodeURIComponent(e.id)}`, { body: { status: next } });
          current = updated.status;
          e.status = updated.status;
          statusBadge.className = `badge status-${cls(updated.status)}`;
          statusBadge.textContent = statusLabel(updated.status);
          announce(`\u201c${e.title}\u201d is now ${statusLabel(updated.status).toLowerCase()}.`);
        } catch (err) {
          sel.value = current;
          showError(err, 'Could not change the status');
        } finally {
          sel.disabled = false;
        }
      });
      const del = h('button', { type: 'button', class: 'button-danger-quiet button-small' }, 'Delete');
      const li = h('li', { class: 'card record', 'data-feedback': e.id },
        h('div', { class: 'record-main' },
          h('h2', { class: 'record-title' }, e.title),
          e.description && e.description.trim() ? h('p', { class: 'record-text' }, e.description) : null,
          h('p', { class: 'meta' },
            badge('type', e.type, FEEDBACK_TYPES[e.type] || e.type),
            statusBadge,
            h('span', { class: 'votes', 'aria-label': `${e.upvotes} upvotes, ${e.downvotes} downvotes, score ${e.score}` },
              h('span', { 'aria-hidden': 'true' }, h('b', { 'data-upvotes': '' }, fmtNum(e.upvotes)), ' up'),
              h('span', { 'aria-hidden': 'true' }, h('b', { 'data-downvotes': '' }, fmtNum(e.downvotes)), ' down'),
              h('span', { 'aria-hidden': 'true' }, 'score ', h('b', { 'data-score': '' }, fmtNum(e.score))))),
          h('p', { class: 'meta' },
            e.submitter_email ? h('span', null, 'From ', h('a', { href: `mailto:${e.submitter_email}`, 'data-email': '' }, e.submitter_email)) : h('span', null, 'No email given'),
            timeEl(e.created_at))),
        h('div', { class: 'record-side' },
          h('div', { class: 'field' },
            h('label', { for: selId }, 'Status', h('span', { class: 'sr-only' }, ` of \u201c${e.title}\u201d`)),
            sel),
          del));
      del.setAttribute('aria-label', `Delete \u201c${e.title}\u201d`);
      del.addEventListener('click', async () => {
        const ok = await confirmDialog({ title: 'Delete this feedback?', text: `\u201c${e.title}\u201d and its votes will be deleted. This cannot be undone.`, ok: 'Delete' });
        if (!ok) return;
        await busy(del, async () => {
          try {
            await api('DELETE', `/v1/feedback/${encodeURIComponent(e.id)}`);
          } catch (err) {
            showError(err, 'Could not delete the feedback');
            return;
          }
          entries = entries.filter((x) => x.id !== e.id);
          li.remove();
          updateCount();
          if (!entries.length) load();
          announce(`Deleted \u201c${e.title}\u201d.`);
          $('h1').focus();
        });
      });
      return li;
    }

    await load();
  }

  // ---------------------------------------------------------------- testimonials

  function stars(rating) {
    const n = Math.max(0, Math.min(5, Math.round(Number(rating) || 0)));
    return h('span', { class: 'stars', role: 'img', 'aria-label': `${n} out of 5 stars` },
      '\u2605'.repeat(n), h('span', { class: 'off' }, '\u2605'.repeat(5 - n)));
  }

  function stat(label, value, key, text) {
    return h('div', { class: 'stat' },
      h('span', { class: 'stat-label' }, label),
      h('span', { class: `stat-value${text ? ' text' : ''}`, 'data-metric': key, title: text ? value : null }, value));
  }

  async function screenTestimonials(ctx) {
    const { project, alive } = ctx;
    setTitle('Testimonials', project.name);
    const statsBox = h('div', { class: 'stats', id: 'testimonial-stats' });
    const listBox = h('div');
    const showSel = h('select', { name: 'show', value: state.testimonialFilter },
      options([['', 'All'], ['pending', 'Pending'], ['approved', 'Approved'], ['rejected', 'Rejected']], state.testimonialFilter));
    showSel.addEventListener('change', () => { state.testimonialFilter = showSel.value; draw(); });
    const filters = h('form', { class: 'card filters', role: 'search', 'aria-label': 'Filter testimonials' },
      field({ id: 'tm-filter', label: 'Show', control: showSel }));
    filters.addEventListener('submit', (ev) => ev.preventDefault());

    setMain(
      pageHead('Testimonials', 'Only approved testimonials are returned to your site.', project,
        h('a', { class: 'button button-secondary', href: `/t/${project.slug}`, target: '_blank', rel: 'noopener' }, 'Open submission form')),
      statsBox, filters, listBox);

    let data = [];

    function drawStats(s) {
      const avg = typeof s.average_rating === 'number' ? `${s.average_rating.toFixed(1)} \u2605` : '\u2014';
      statsBox.replaceChildren(
        stat('Total', fmtNum(s.total), 'total'),
        stat('Pending', fmtNum(s.pending), 'pending'),
        stat('Approved', fmtNum(s.approved), 'approved'),
        stat('Rejected', fmtNum(s.rejected), 'rejected'),
        stat('Average rating (approved)', avg, 'average_rating'));
    }

    async function load() {
      try {
        const res = await api('GET', `/v1/testimonials/all?${q({ project_id: project.id })}`);
        if (!alive()) return false;
        data = res.data || [];
        drawStats(res.stats || {});
        return true;
      } catch (e) {
        if (alive()) showError(e, 'Could not load testimonials');
        return false;
      }
    }

    function draw() {
      const shown = state.testimonialFilter ? data.filter((t) => t.status === state.testimonialFilter) : data;
      if (!shown.length) {
        listBox.replaceChildren(h('div', { class: 'card empty' }, h('p', null,
          data.length ? 'No testimonials with this status.' : 'No testimonials yet. Share your submission form to collect some.')));
        return;
      }
      listBox.replaceChildren(h('ul', { class: 'records', id: 'testimonial-list' }, shown.map(item)));
    }

    function item(t) {
      const approve = h('button', { type: 'button', class: 'button-small', disabled: t.status === 'approved', 'data-action': 'approve' }, 'Approve');
      const reject = h('button', { type: 'button', class: 'button-secondary button-small', disabled: t.status === 'rejected', 'data-action': 'reject' }, 'Reject');
      const del = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'data-action': 'delete' }, 'Delete');
      for (const [b, verb] of [[approve, 'Approve'], [reject, 'Reject'], [del, 'Delete']]) {
        b.setAttribute('aria-label', `${verb} the testimonial from ${t.author_name}`);
      }
      const li = h('li', { class: 'card record', 'data-testimonial': t.id },
        h('div', { class: 'record-main' },
          h('h2', { class: 'record-title' }, t.author_name, t.author_title ? h('span', { class: 'muted small' }, ` \u00b7 ${t.author_title}`) : null),
          h('p', { class: 'meta' }, stars(t.rating), badge('status', t.status, statusLabel(t.status)), timeEl(t.created_at)),
          h('p', { class: 'record-text' }, t.content),
          h('p', { class: 'meta' },
            t.author_email ? h('a', { href: `mailto:${t.author_email}` }, t.author_email) : null,
            isHttpUrl(t.tweet_url) ? h('a', { href: t.tweet_url, target: '_blank', rel: 'noopener noreferrer nofollow' }, 'Tweet') : null)),
        h('div', { class: 'record-side' }, approve, reject, del));

      const moderate = async (status, button) => {
        await busy(button, async () => {
          try {
            const updated = await api('PATCH', `/v1/testimonials/${encodeURIComponent(t.id)}?${q({ project_id: project.id })}`, { body: { status } });
            data = data.map((x) => (x.id === t.id ? { ...x, ...updated } : x));
          } catch (e) {
            showError(e, 'Could not update the testimonial');
            return;
          }
          await load();
          if (!alive()) return;
          draw();
          announce(`Testimonial from ${t.author_name} ${status}.`);
          const again = $(`[data-testimonial="${CSS.escape(t.id)}"] button:not(:disabled)`);
          (again || $('h1')).focus();
        });
      };
      approve.addEventListener('click', () => moderate('approved', approve));
      reject.addEventListener('click', () => moderate('rejected', reject));
      del.addEventListener('click', async () => {
        const ok = await confirmDialog({ title: 'Delete this testimonial?', text: `The testimonial from ${t.author_name} will be deleted. This cannot be undone.`, ok: 'Delete' });
        if (!ok) return;
        await busy(del, async () => {
          try {
            await api('DELETE', `/v1/testimonials/${encodeURIComponent(t.id)}?${q({ project_id: project.id })}`);
          } catch (e) {
            showError(e, 'Could not delete the testimonial');
            return;
          }
          await load();
          if (!alive()) return;
          draw();
          announce(`Deleted the testimonial from ${t.author_name}.`);
          $('h1').focus();
        });
      });
      return li;
    }

    statsBox.append(h('p', { class: 'loading' }, 'Loading\u2026'));
    if (await load()) draw();
  }

  // ---------------------------------------------------------------- changelog

  async function screenChangelog(ctx) {
    const { project, alive } = ctx;
    setTitle('Changelog', project.name);
    const listBox = h('div');
    const editorBox = h('div');
    const newBtn = h('button', { type: 'button', id: 'new-entry' }, 'New entry');
    newBtn.addEventListener('click', () => openEditor(null));
    const subscribers = h('p', { class: 'subscribers hidden', id: 'subscriber-count' });
    setMain(
      pageHead('Changelog', 'Drafts stay private until you publish them.', project,
        h('a', { class: 'button button-secondary', href: `/c/${project.slug}`, target: '_blank', rel: 'noopener' }, 'Open public changelog'),
        newBtn),
      subscribers, editorBox, listBox);

    let entries = [];

    async function load() {
      try {
        const res = await api('GET', `/v1/changelog/dashboard/${encodeURIComponent(project.id)}`);
        if (!alive()) return;
        entries = res.data || [];
        draw();
      } catch (e) {
        if (alive()) showError(e, 'Could not load the changelog');
      }
    }

    function draw() {
      if (!entries.length) {
        listBox.replaceChildren(h('div', { class: 'card empty' }, h('p', null, 'No entries yet. Write your first release note with \u201cNew entry\u201d.')));
        return;
      }
      listBox.replaceChildren(h('ul', { class: 'records', id: 'changelog-list' }, entries.map(item)));
    }

    function excerpt(md) {
      const text = String(md || '')
        .replace(/```[\s\S]*?```/g, ' ')
        .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/<[^>]*>/g, ' ')
        .replace(/(^|\s)[#>*+-]+(?=\s)/g, ' ')
        .replace(/[*_`]+/g, '')
        .replace(/\s+/g, ' ')
        .trim();
      return text.length > 180 ? `${text.slice(0, 180)}\u2026` : text;
    }

    function item(e) {
      const edit = h('button', { type: 'button', class: 'button-secondary button-small', 'data-action': 'edit' }, 'Edit');
      const toggle = h('button', { type: 'button', class: 'button-small', 'data-action': 'toggle-publish' }, e.published ? 'Unpublish' : 'Publish');
      const del = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'data-action': 'delete' }, 'Delete');
      edit.setAttribute('aria-label', `Edit \u201c${e.title}\u201d`);
      toggle.setAttribute('aria-label', `${e.published ? 'Unpublish' : 'Publish'} \u201c${e.title}\u201d`);
      del.setAttribute('aria-label', `Delete \u201c${e.title}\u201d`);
      edit.addEventListener('click', () => openEditor(e));
      toggle.addEventListener('click', () => busy(toggle, async () => {
        try {
          const updated = await api('PATCH', `/v1/changelog/dashboard/${encodeURIComponent(project.id)}/${encodeURIComponent(e.id)}`, { body: { published: !e.published } });
          entries = entries.map((x) => (x.id === e.id ? updated : x));
        } catch (err) {
          showError(err, 'Could not change the entry');
          return;
        }
        draw();
        announce(`\u201c${e.title}\u201d ${e.published ? 'moved back to drafts' : 'published'}.`);
        const again = $(`[data-entry="${CSS.escape(e.id)}"] [data-action="toggle-publish"]`);
        if (again) again.focus();
      }));
      del.addEventListener('click', async () => {
        const ok = await confirmDialog({ title: 'Delete this entry?', text: `\u201c${e.title}\u201d will be deleted${e.published ? ' and disappear from your public changelog' : ''}. This cannot be undone.`, ok: 'Delete' });
        if (!ok) return;
        await busy(del, async () => {
          try {
            await api('DELETE', `/v1/changelog/dashboard/${encodeURIComponent(project.id)}/${encodeURIComponent(e.id)}`);
          } catch (err) {
            showError(err, 'Could not delete the entry');
            return;
          }
          entries = entries.filter((x) => x.id !== e.id);
          draw();
          announce(`Deleted \u201c${e.title}\u201d.`);
          $('h1').focus();
        });
      });
      return h('li', { class: 'card record', 'data-entry': e.id },
        h('div', { class: 'record-main' },
          h('h2', { class: 'record-title' }, e.title),
          h('p', { class: 'meta' },
            badge('kind', e.type, CHANGELOG_TYPES[e.type] || e.type),
            e.published ? badge('status', 'published', 'Published') : badge('status', 'draft', 'Draft'),
            e.published && e.published_at ? h('span', null, 'Published ', timeEl(e.published_at)) : h('span', null, 'Created ', timeEl(e.created_at))),
          h('p', { class: 'record-text muted' }, excerpt(e.content))),
        h('div', { class: 'record-side' }, edit, toggle, del));
    }

    function openEditor(entry) {
      const editing = Boolean(entry);
      const title = h('input', { type: 'text', name: 'title', maxlength: '200', value: entry ? entry.title : '' });
      const type = h('select', { name: 'type', value: entry ? entry.type : 'feature' }, options(Object.entries(CHANGELOG_TYPES), entry ? entry.type : 'feature'));
      const content = h('textarea', { name: 'content', rows: '12', spellcheck: 'true', value: entry ? entry.content : '' });
      const preview = h('div', { class: 'preview prose', id: 'cl-preview', role: 'region', 'aria-labelledby': 'cl-preview-title', 'aria-live': 'off' });
      const update = () => { preview.innerHTML = renderMarkdown(content.value); };
      content.addEventListener('input', update);
      const publish = h('input', { type: 'checkbox', name: 'published', id: 'cl-published' });
      const submit = h('button', { type: 'submit' }, editing ? 'Save changes' : 'Save entry');
      const cancel = h('button', { type: 'button', class: 'button-secondary' }, 'Cancel');
      const headingId = 'cl-editor-title';
      const form = h('form', { class: 'card', id: 'changelog-editor', novalidate: '', 'aria-labelledby': headingId },
        h('h2', { id: headingId, tabindex: '-1' }, editing ? `Edit \u201c${entry.title}\u201d` : 'New entry'),
        h('div', { class: 'field-row' },
          field({ id: 'cl-title', label: 'Title', control: title }),
          field({ id: 'cl-type', label: 'Type', control: type, className: 'field-narrow' })),
        h('div', { class: 'editor' },
          field({ id: 'cl-content', label: 'Content (Markdown)', control: content, hint: 'Headings (#), **bold**, *italics*, `code`, lists and [links](https://\u2026).' }),
          h('div', { class: 'field' },
            h('span', { class: 'field-label', id: 'cl-preview-title' }, 'Preview'),
            preview)),
        editing ? null : h('p', null, h('label', { class: 'check', for: 'cl-published' }, publish, 'Publish now (otherwise it is saved as a draft)')),
        formErr(),
        h('div', { class: 'button-row' }, submit, cancel));
      update();
      cancel.addEventListener('click', () => { editorBox.replaceChildren(); newBtn.focus(); });
      form.addEventListener('submit', async (ev) => {
        ev.preventDefault();
        clearFormErrors(form);
        await busy(submit, async () => {
          const body = { title: title.value, type: type.value, content: content.value };
          let saved;
          try {
            if (editing) {
              saved = await api('PATCH', `/v1/changelog/dashboard/${encodeURIComponent(project.id)}/${encodeURIComponent(entry.id)}`, { body });
            } else {
              saved = await api('POST', `/v1/changelog/dashboard/${encodeURIComponent(project.id)}`, { body: { ...body, published: publish.checked } });
            }
          } catch (e) {
            showFormError(form, e);
            return;
          }
          if (!alive()) return;
          entries = editing ? entries.map((x) => (x.id === saved.id ? saved : x)) : [saved, ...entries];
          editorBox.replaceChildren();
          draw();
          announce(editing ? `Saved \u201c${saved.title}\u201d.` : `${saved.published ? 'Published' : 'Saved draft'} \u201c${saved.title}\u201d.`);
          const row = $(`[data-entry="${CSS.escape(saved.id)}"] [data-action="toggle-publish"]`);
          (row || newBtn).focus();
        });
      });
      editorBox.replaceChildren(form);
      title.focus();
    }

    /** Who gets an email on publishing: confirmed subscribers (double opt-in), and those still to confirm. */
    async function loadSubscribers() {
      let n;
      try {
        n = await api('GET', `/v1/projects/${encodeURIComponent(project.id)}/changelog/subscribers`);
      } catch (e) {
        return; // viewers may not see it (403), and the entries matter more than the count
      }
      if (!alive() || !n) return;
      subscribers.replaceChildren(
        h('strong', { id: 'subscriber-confirmed' }, plural(n.confirmed || 0, 'subscriber', 'subscribers')),
        n.pending ? h('span', { class: 'muted', id: 'subscriber-pending' }, ` (plus ${fmtNum(n.pending)} awaiting confirmation)`) : '', // not null: replaceChildren prints it
        h('span', { class: 'muted' }, ` ${n.confirmed === 1 ? 'receives' : 'receive'} each entry by email when it is published.`));
      subscribers.classList.remove('hidden');
    }

    listBox.append(h('p', { class: 'loading' }, 'Loading\u2026'));
    await Promise.all([load(), loadSubscribers()]);
  }

  // ---------------------------------------------------------------- knowledge base

  async function loadModels() {
    if (!state.models) {
      const res = await api('GET', '/v1/indexes/models');
      state.models = res.data || [];
    }
    return state.models;
  }

  async function screenKnowledge(ctx) {
    const { project, alive } = ctx;
    if (ctx.sub) { await screenIndex(ctx); return; }
    setTitle('Knowledge base', project.name);
    const listBox = h('div', { 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading indexes\u2026'));
    const formBox = h('div');
    setMain(
      pageHead('Knowledge base', `Document indexes with semantic search. Calls go through your session.`, project),
      h('div', { class: 'grid-2' },
        h('section', { class: 'card', 'aria-labelledby': 'indexes-title' }, h('h2', { id: 'indexes-title' }, 'Indexes'), listBox),
        formBox));

    let indexes;
    let models;
    try {
      [indexes, models] = await Promise.all([
        keyApi(project, 'GET', '/v1/indexes').then((r) => r.data || []),
        loadModels(),
      ]);
    } catch (e) {
      if (!alive()) return;
      listBox.replaceChildren(h('p', { class: 'muted' }, 'Indexes could not be loaded.'));
      showError(e, 'Could not load the knowledge base');
      return;
    }
    if (!alive()) return;
    listBox.removeAttribute('aria-busy');
    drawList();
    formBox.replaceChildren(createIndexCard());

    function drawList() {
      if (!indexes.length) {
        listBox.replaceChildren(h('p', { class: 'muted' }, 'No indexes yet. The first index also picks the embedding model for the whole project.'));
        return;
      }
      listBox.replaceChildren(h('div', { class: 'table-wrap' }, h('table', { id: 'index-table' },
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Model'),
          h('th', { scope: 'col', class: 'num' }, 'Docs'), h('th', { scope: 'col', class: 'num' }, 'Chunks'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
        h('tbody', null, indexes.map((ix) => {
          const del = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'aria-label': `Delete index ${ix.name}` }, 'Delete');
          del.addEventListener('click', async () => {
            const ok = await confirmDialog({ title: `Delete the index \u201c${ix.name}\u201d?`, text: 'All its documents and chunks are deleted. This cannot be undone.', ok: 'Delete index' });
            if (!ok) return;
            await busy(del, async () => {
              try {
                await keyApi(project, 'DELETE', `/v1/indexes/${encodeURIComponent(ix.id)}`);
              } catch (e) {
                showError(e, 'Could not delete the index');
                return;
              }
              indexes = indexes.filter((x) => x.id !== ix.id);
              drawList();
              formBox.replaceChildren(createIndexCard());
              announce(`Deleted the index \u201c${ix.name}\u201d.`);
              $('h1').focus();
            });
          });
          return h('tr', { 'data-index': ix.id },
            h('td', { class: 'cell-clip' }, h('a', { href: projectPath(project, 'knowledge', ix.id), 'data-nav': '' }, ix.name)),
            h('td', { class: 'mono small cell-clip' }, ix.embedding_model),
            h('td', { class: 'num' }, fmtNum(ix.document_count)),
            h('td', { class: 'num' }, fmtNum(ix.chunk_count)),
            h('td', { class: 'num' }, del));
        })))));
    }

    function createIndexCard() {
      const locked = indexes.length ? indexes[0].embedding_model : null;
      const available = models.filter((m) => m.available);
      const modelOptions = locked
        ? [[locked, locked]]
        : available.map((m) => [m.id, `${m.id} \u2014 ${m.dimensions} dims${m.description ? `, ${m.description}` : ''}`]);
      const name = h('input', { type: 'text', name: 'name', maxlength: '200', autocomplete: 'off' });
      const model = h('select', { name: 'embedding_model', disabled: Boolean(locked) || !modelOptions.length }, options(modelOptions, locked || (modelOptions[0] && modelOptions[0][0])));
      const externalId = h('input', { type: 'text', name: 'external_id', maxlength: '200', autocomplete: 'off' });
      const submit = h('button', { type: 'submit', disabled: !modelOptions.length }, 'Create index');
      const hint = locked
        ? `Locked: the project\u2019s first index chose ${locked}, and every index uses the same model.`
        : (modelOptions.length ? 'Your first index locks the project to this model.' : 'No embedding model is available on this server. Install a local model or configure a provider key.');
      const form = h('form', { id: 'create-index', novalidate: '' },
        field({ id: 'index-name', label: 'Name', control: name }),
        field({ id: 'index-model', label: 'Embedding model', control: model, hint }),
        field({ id: 'index-external', label: 'External ID (optional)', control: externalId }),
        formErr(),
        submit);
      form.addEventListener('submit', async (ev) => {
        ev.preventDefault();
        clearFormErrors(form);
        await busy(submit, async () => {
          const body = { name: name.value };
          if (model.value) body.embedding_model = model.value;
          if (externalId.value.trim()) body.external_id = externalId.value.trim();
          let ix;
          try {
            ix = await keyApi(project, 'POST', '/v1/indexes', { body });
          } catch (e) {
            showFormError(form, e, { conflictField: e.code === 'embedding_model_locked' ? 'embedding_model' : 'name' });
            return;
          }
          announce(`Index \u201c${ix.name}\u201d created.`);
          navigate(projectPath(project, 'knowledge', ix.id));
        });
      });
      return h('section', { class: 'card', 'aria-labelledby': 'new-index-title' }, h('h2', { id: 'new-index-title' }, 'New index'), form);
    }
  }

  async function screenIndex(ctx) {
    const { project, alive, sub } = ctx;
    setLoading('Loading index\u2026');
    let index;
    try {
      const list = (await keyApi(project, 'GET', '/v1/indexes')).data || [];
      index = list.find((x) => x.id === sub);
    } catch (e) {
      if (alive()) showError(e, 'Could not load the index');
      return;
    }
    if (!alive()) return;
    if (!index) {
      setMain(pageHead('Index not found', null, project),
        h('section', { class: 'card' }, h('p', null, 'This index does not exist (it may have been deleted).'),
          h('p', null, h('a', { href: projectPath(project, 'knowledge'), 'data-nav': '' }, 'Back to the knowledge base'))));
      return;
    }
    setTitle(index.name, 'Knowledge base', project.name);
    const base = `/v1/indexes/${encodeURIComponent(index.id)}`;
    let page = 1;
    const docsBox = h('div', { id: 'documents' });
    const pager = h('div', { class: 'pager' });
    const resultsBox = h('div', { id: 'search-results' });

    // Upload
    const content = h('textarea', { name: 'content', rows: '8' });
    const metadata = h('textarea', { name: 'metadata', rows: '3', class: 'mono', placeholder: '{"source": "faq"}', spellcheck: 'false' });
    const upBtn = h('button', { type: 'submit' }, 'Upload document');
    const upForm = h('form', { id: 'upload-document', novalidate: '' },
      field({ id: 'doc-content', label: 'Content', control: content, hint: 'Plain text or Markdown, up to 100 KB. It is split into chunks and embedded in the background.' }),
      field({ id: 'doc-metadata', label: 'Metadata (JSON object, optional)', control: metadata, hint: 'Returned with every search result from this document.' }),
      formErr(),
      upBtn);
    upForm.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      clearFormErrors(upForm);
      const text = content.value;
      if (!text.trim()) { setFieldError(upForm, 'content', 'is required').focus(); return; }
      if (new TextEncoder().encode(text).length > MAX_DOCUMENT_BYTES) {
        setFieldError(upForm, 'content', 'must be at most 100 KB (102,400 bytes)').focus();
        return;
      }
      const body = { content: text };
      if (metadata.value.trim()) {
        let meta;
        try { meta = JSON.parse(metadata.value); } catch (e) { meta = undefined; }
        if (!meta || typeof meta !== 'object' || Array.isArray(meta)) {
          setFieldError(upForm, 'metadata', 'must be a JSON object, for example {"source": "faq"}').focus();
          return;
        }
        body.metadata = meta;
      }
      await busy(upBtn, async () => {
        let doc;
        try {
          doc = await keyApi(project, 'POST', `${base}/documents`, { body });
        } catch (e) {
          showFormError(upForm, e);
          return;
        }
        content.value = '';
        metadata.value = '';
        announce(`Document uploaded: ${plural(doc.chunks_created, 'chunk', 'chunks')}, embedding now.`);
        page = 1;
        await loadDocs();
      });
    });

    // Search
    const query = h('input', { type: 'search', name: 'query', autocomplete: 'off', maxlength: '2000' });
    const topK = h('input', { type: 'number', name: 'top_k', min: '1', max: '20', step: '1', value: '5', inputmode: 'numeric' });
    const searchBtn = h('button', { type: 'submit' }, 'Search');
    const searchForm = h('form', { id: 'search-form', role: 'search', novalidate: '', 'aria-label': `Search ${index.name}` },
      h('div', { class: 'field-row' },
        field({ id: 'search-query', label: 'Query', control: query }),
        field({ id: 'search-topk', label: 'Results (top_k)', control: topK, className: 'field-narrow' })),
      formErr(),
      searchBtn);
    searchForm.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      clearFormErrors(searchForm);
      const k = Number(topK.value || 5);
      await busy(searchBtn, async () => {
        let res;
        try {
          res = await keyApi(project, 'POST', `${base}/search`, { body: { query: query.value, top_k: Number.isFinite(k) ? k : 5 } });
        } catch (e) {
          showFormError(searchForm, e);
          return;
        }
        if (!alive()) return;
        const results = res.results || [];
        announce(results.length ? `${plural(results.length, 'result', 'results')}.` : 'No results.');
        if (!results.length) {
          resultsBox.replaceChildren(h('p', { class: 'muted' }, 'No matching chunks. Documents are searchable once their status is ready.'));
          return;
        }
        resultsBox.replaceChildren(h('ol', { class: 'results' }, results.map((r) => h('li', { class: 'result' },
          h('div', { class: 'result-head' },
            h('span', { class: 'score', 'data-score': '', title: 'Cosine similarity' }, typeof r.score === 'number' ? r.score.toFixed(3) : String(r.score)),
            h('span', null, 'Document ', h('code', { title: r.document_id }, shortId(r.document_id))),
            r.metadata && Object.keys(r.metadata).length ? h('span', { class: 'json' }, JSON.stringify(r.metadata)) : null),
          h('p', { class: 'result-text' }, r.chunk_content)))));
      });
    });

    const delBtn = h('button', { type: 'button', class: 'button-danger-quiet' }, 'Delete index');
    delBtn.addEventListener('click', async () => {
      const ok = await confirmDialog({ title: `Delete the index \u201c${index.name}\u201d?`, text: 'All its documents and chunks are deleted. This cannot be undone.', ok: 'Delete index' });
      if (!ok) return;
      await busy(delBtn, async () => {
        try {
          await keyApi(project, 'DELETE', base);
        } catch (e) {
          showError(e, 'Could not delete the index');
          return;
        }
        announce(`Deleted the index \u201c${index.name}\u201d.`);
        navigate(projectPath(project, 'knowledge'));
      });
    });

    setMain(
      h('p', { class: 'small' }, h('a', { href: projectPath(project, 'knowledge'), 'data-nav': '' }, '\u2190 All indexes')),
      pageHead(index.name, `${index.embedding_model} \u00b7 ${index.dimensions} dimensions${index.external_id ? ` \u00b7 external ID ${index.external_id}` : ''}`, project, delBtn),
      h('div', { class: 'grid-2' },
        h('section', { class: 'card', 'aria-labelledby': 'upload-title' }, h('h2', { id: 'upload-title' }, 'Upload a document'), upForm),
        h('section', { class: 'card', 'aria-labelledby': 'search-title' }, h('h2', { id: 'search-title' }, 'Search playground'), searchForm, resultsBox)),
      h('section', { class: 'card', 'aria-labelledby': 'docs-title' }, h('h2', { id: 'docs-title' }, 'Documents'), docsBox, pager),
    );

    async function loadDocs() {
      stopTimers(); // at most one poll loop, whoever calls
      let res;
      try {
        res = await keyApi(project, 'GET', `${base}/documents?${q({ page })}`);
      } catch (e) {
        if (alive()) showError(e, 'Could not load the documents');
        return;
      }
      if (!alive()) return;
      drawDocs(res);
      // Poll while anything is still being embedded.
      if ((res.data || []).some((d) => d.status === 'pending')) later(loadDocs, 1000);
    }

    function drawDocs(res) {
      const docs = res.data || [];
      const focusKey = document.activeElement && docsBox.contains(document.activeElement) ? document.activeElement.getAttribute('data-focus-key') : null;
      if (!docs.length) {
        docsBox.replaceChildren(h('p', { class: 'muted' }, 'No documents yet.'));
      } else {
        docsBox.replaceChildren(h('div', { class: 'table-wrap' }, h('table', { id: 'document-table' },
          h('thead', null, h('tr', null,
            h('th', { scope: 'col' }, 'Document'), h('th', { scope: 'col' }, 'Status'), h('th', { scope: 'col', class: 'num' }, 'Chunks'),
            h('th', { scope: 'col' }, 'Metadata'), h('th', { scope: 'col' }, 'Uploaded'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
          h('tbody', null, docs.map(docRow)))));
      }
      const total = Number(res.total) || 0;
      const per = Number(res.per_page) || 20;
      const pages = Math.max(1, Math.ceil(total / per));
      if (pages <= 1) { pager.replaceChildren(total ? h('span', null, plural(total, 'document', 'documents')) : ''); }
      else {
        const prev = h('button', { type: 'button', class: 'button-secondary button-small', disabled: page <= 1, 'data-focus-key': 'prev' }, 'Previous');
        const next = h('button', { type: 'button', class: 'button-secondary button-small', disabled: page >= pages, 'data-focus-key': 'next' }, 'Next');
        prev.addEventListener('click', () => { page -= 1; stopTimers(); loadDocs(); });
        next.addEventListener('click', () => { page += 1; stopTimers(); loadDocs(); });
        pager.replaceChildren(h('span', null, `Page ${page} of ${pages} \u00b7 ${plural(total, 'document', 'documents')}`), prev, next);
      }
      if (focusKey) {
        const again = docsBox.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`);
        if (again) again.focus();
      }
    }

    function docRow(d) {
      const del = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'data-focus-key': `del-${d.id}`, 'aria-label': `Delete document ${shortId(d.id)}` }, 'Delete');
      del.addEventListener('click', async () => {
        const ok = await confirmDialog({ title: 'Delete this document?', text: 'The document and all its chunks are removed from the index. This cannot be undone.', ok: 'Delete' });
        if (!ok) return;
        await busy(del, async () => {
          try {
            await keyApi(project, 'DELETE', `${base}/documents/${encodeURIComponent(d.id)}`);
          } catch (e) {
            showError(e, 'Could not delete the document');
            return;
          }
          announce('Document deleted.');
          stopTimers();
          await loadDocs();
          $('#docs-title').setAttribute('tabindex', '-1');
          $('#docs-title').focus();
        });
      });
      const meta = d.metadata && typeof d.metadata === 'object' && Object.keys(d.metadata).length ? JSON.stringify(d.metadata) : '\u2014';
      return h('tr', { 'data-doc': d.id },
        h('td', null, h('code', { title: d.id }, shortId(d.id))),
        h('td', null, h('span', { class: `badge status-${cls(d.status)}`, 'data-doc-status': '' }, d.status),
          d.status === 'failed' && d.error ? h('div', { class: 'small muted' }, d.error) : null),
        h('td', { class: 'num' }, fmtNum(d.chunks_created)),
        h('td', { class: 'json cell-clip' }, meta),
        h('td', null, timeEl(d.created_at)),
        h('td', { class: 'num' }, del));
    }

    docsBox.append(h('p', { class: 'loading' }, 'Loading documents\u2026'));
    await loadDocs();
  }

  // ---------------------------------------------------------------- analytics

  let regionNames = null;
  function countryName(code) {
    if (!code) return 'Unknown';
    try {
      regionNames = regionNames || new Intl.DisplayNames(['en'], { type: 'region' });
      const name = regionNames.of(String(code).toUpperCase());
      return name && name !== code ? `${name} (${code})` : code;
    } catch (e) {
      return code;
    }
  }

  /** A ranked table with a proportional bar behind each label. */
  function breakdown({ id, title, rows, labelKey, labelHead, countKey = 'views', countHead = 'Views', format = (v) => v || '(none)' }) {
    const list = Array.isArray(rows) ? rows : [];
    const max = Math.max(1, ...list.map((r) => Number(r[countKey]) || 0));
    const body = list.length
      ? h('div', { class: 'table-wrap' }, h('table', { id },
        h('thead', null, h('tr', null,
          h('th', { scope: 'col' }, labelHead), h('th', { scope: 'col', class: 'num' }, countHead), h('th', { scope: 'col', class: 'num' }, 'Visitors'))),
        h('tbody', null, list.map((r) => {
          const bar = h('span', { class: 'bar', 'aria-hidden': 'true' });
          bar.style.width = `${Math.max(2, Math.round(((Number(r[countKey]) || 0) / max) * 100))}%`; // CSSOM: allowed by the CSP
          return h('tr', null,
            h('td', { class: 'bar-cell cell-clip' }, bar, h('span', { class: 'bar-label' }, format(r[labelKey]))),
            h('td', { class: 'num' }, fmtNum(r[countKey])),
            h('td', { class: 'num' }, fmtNum(r.visitors)));
        }))))
      : h('p', { class: 'muted' }, 'No data for this period.');
    return h('section', { class: 'card', 'aria-labelledby': `${id}-title` }, h('h2', { id: `${id}-title` }, title), body);
  }

  function niceStep(raw) {
    const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-9)));
    const f = raw / pow;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * pow;
  }

  function chartLabel(iso, interval, long) {
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return '';
    const day = d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short' });
    if (interval !== 'hour') return long ? d.toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' }) : day;
    const time = d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
    return `${day} ${time}`;
  }

  function drawChart(box, ts) {
    const points = (ts && Array.isArray(ts.data) ? ts.data : []).map((p) => ({ date: p.date, views: Number(p.views) || 0, visitors: Number(p.visitors) || 0 }));
    const interval = ts && ts.interval === 'hour' ? 'hour' : 'day';
    const W = Math.max(280, Math.round(box.clientWidth || 720));
    const H = W < 500 ? 200 : 260;
    const L = 40; const R = 12; const T = 12; const B = 26;
    const peak = Math.max(0, ...points.map((p) => Math.max(p.views, p.visitors)));
    const step = niceStep(Math.max(1, peak) / 4);
    const yMax = step * 4;
    const n = points.length;
    const x = (i) => L + (n <= 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (n - 1));
    const y = (v) => T + (H - T - B) * (1 - v / yMax);
    const totalViews = points.reduce((s, p) => s + p.views, 0);
    const totalVisitors = points.reduce((s, p) => s + p.visitors, 0);
    const titleId = nextId('chart-title');
    const descId = nextId('chart-desc');
    let best = null;
    for (const p of points) if (!best || p.views > best.views) best = p;
    const desc = n
      ? `${fmtNum(totalViews)} page views and ${fmtNum(totalVisitors)} visitors over ${plural(n, interval, `${interval}s`)}` +
        (best && best.views ? `; busiest ${interval} ${chartLabel(best.date, interval, true)} with ${plural(best.views, 'view', 'views')}.` : '.')
      : 'No data for this period.';

    const el = svg('svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img', 'aria-labelledby': `${titleId} ${descId}` },
      svg('title', { id: titleId }, `Page views and visitors per ${interval}`),
      svg('desc', { id: descId }, desc));
    for (let k = 0; k <= 4; k++) {
      const v = step * k;
      el.append(svg('line', { class: 'grid', x1: L, x2: W - R, y1: y(v), y2: y(v) }));
      el.append(svg('text', { x: L - 6, y: y(v) + 4, 'text-anchor': 'end' }, fmtNum(v)));
    }
    if (n) {
      const line = (key) => points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)} ${y(p[key]).toFixed(1)}`).join(' ');
      el.append(svg('path', { class: 'area-views', d: `${line('views')} L${x(n - 1).toFixed(1)} ${y(0)} L${x(0).toFixed(1)} ${y(0)} Z` }));
      el.append(svg('path', { class: 'line-views', d: line('views') }));
      el.append(svg('path', { class: 'line-visitors', d: line('visitors') }));
      if (n === 1) {
        el.append(svg('circle', { class: 'dot-views', cx: x(0), cy: y(points[0].views), r: 3.5 }));
      }
      const labels = Math.max(2, Math.min(W < 500 ? 3 : 6, n));
      const used = new Set();
      for (let k = 0; k < labels; k++) {
        const i = n === 1 ? 0 : Math.round((k * (n - 1)) / (labels - 1));
        if (used.has(i)) continue;
        used.add(i);
        const anchor = i === 0 ? 'start' : i === n - 1 ? 'end' : 'middle';
        el.append(svg('text', { x: x(i), y: H - 6, 'text-anchor': n === 1 ? 'middle' : anchor }, chartLabel(points[i].date, interval, false)));
      }
    }
    box.replaceChildren(el);
  }

  async function screenAnalytics(ctx) {
    const { project, alive } = ctx;
    setTitle('Analytics', project.name);
    const periodBtns = PERIODS.map(([value, label]) => h('button', { type: 'button', 'aria-pressed': String(value === state.period), 'data-period': value }, label));
    const refresh = h('button', { type: 'button', class: 'button-secondary', id: 'analytics-refresh' }, 'Refresh');
    const switcher = h('div', { class: 'segmented', role: 'group', 'aria-label': 'Period' }, periodBtns);
    const statsBox = h('div', { class: 'stats', id: 'analytics-overview' });
    const chartBox = h('div', { id: 'analytics-chart' });
    const chartCard = h('section', { class: 'card', 'aria-labelledby': 'chart-heading' },
      h('div', { class: 'card-head' }, h('h2', { id: 'chart-heading' }, 'Visitors and page views'),
        h('p', { class: 'legend', 'aria-hidden': 'true' }, h('span', { class: 'lg-views' }, 'Page views'), h('span', { class: 'lg-visitors' }, 'Visitors'))),
      chartBox);
    const tablesBox = h('div', { class: 'tables', id: 'analytics-tables' });
    const subtitle = h('p', { class: 'muted', id: 'analytics-period' });
    const head = pageHead('Analytics', null, project, switcher, refresh);
    $('h1', head).after(subtitle);
    setMain(head, statsBox, chartCard, tablesBox);

    let lastSeries = null;
    state.onResize = () => { if (lastSeries && alive()) drawChart(chartBox, lastSeries); };

    for (const b of periodBtns) {
      b.addEventListener('click', () => {
        state.period = b.getAttribute('data-period');
        for (const o of periodBtns) o.setAttribute('aria-pressed', String(o === b));
        load(true);
      });
    }
    refresh.addEventListener('click', () => busy(refresh, () => load(true)));

    async function load(announceDone) {
      const period = state.period;
      const label = (PERIODS.find(([v]) => v === period) || [period, period])[1];
      subtitle.textContent = `Last ${label} \u00b7 cookie-free, bots excluded`;
      $('#main').setAttribute('aria-busy', 'true');
      const qs = q({ project_id: project.id, period });
      const names = ['overview', 'timeseries', 'pages', 'referrers', 'countries', 'devices', 'events', 'utm'];
      const settled = await Promise.allSettled(names.map((n) => api('GET', `/v1/analytics/${n}?${qs}`)));
      if (!alive() || period !== state.period) return;
      $('#main').removeAttribute('aria-busy');
      const r = {};
      let firstError = null;
      names.forEach((n, i) => {
        if (settled[i].status === 'fulfilled') r[n] = settled[i].value || {};
        else firstError = firstError || settled[i].reason;
      });
      if (firstError) { showError(firstError, 'Some analytics could not be loaded'); if (!state.me) return; } else hideBanner();

      const o = r.overview || {};
      statsBox.replaceChildren(
        stat('Page views', fmtNum(o.page_views || 0), 'page_views'),
        stat('Unique visitors', fmtNum(o.unique_visitors || 0), 'unique_visitors'),
        stat('Top page', o.top_page || '\u2014', 'top_page', true),
        stat('Top referrer', o.top_referrer || '\u2014', 'top_referrer', true));
      if (r.timeseries) { lastSeries = r.timeseries; drawChart(chartBox, lastSeries); }
      else chartBox.replaceChildren(h('p', { class: 'muted' }, 'The chart could not be loaded.'));

      const d = r.devices || {};
      const u = r.utm || {};
      tablesBox.replaceChildren(
        breakdown({ id: 'an-pages', title: 'Pages', rows: (r.pages || {}).data, labelKey: 'page', labelHead: 'Page' }),
        breakdown({ id: 'an-referrers', title: 'Referrers', rows: (r.referrers || {}).data, labelKey: 'referrer', labelHead: 'Referrer', format: (v) => v || 'Direct / none' }),
        breakdown({ id: 'an-countries', title: 'Countries', rows: (r.countries || {}).data, labelKey: 'country', labelHead: 'Country', format: countryName }),
        breakdown({ id: 'an-devices', title: 'Devices', rows: d.data, labelKey: 'device', labelHead: 'Device', format: (v) => capitalize(v || 'unknown') }),
        breakdown({ id: 'an-browsers', title: 'Browsers', rows: d.browsers, labelKey: 'browser', labelHead: 'Browser', format: (v) => v || 'Unknown' }),
        breakdown({ id: 'an-os', title: 'Operating systems', rows: d.operating_systems, labelKey: 'os', labelHead: 'OS', format: (v) => v || 'Unknown' }),
        breakdown({ id: 'an-events', title: 'Events', rows: (r.events || {}).data, labelKey: 'name', labelHead: 'Event', countKey: 'count', countHead: 'Count' }),
        breakdown({ id: 'an-utm-sources', title: 'UTM sources', rows: u.sources, labelKey: 'utm_source', labelHead: 'Source' }),
        breakdown({ id: 'an-utm-mediums', title: 'UTM mediums', rows: u.mediums, labelKey: 'utm_medium', labelHead: 'Medium' }),
        breakdown({ id: 'an-utm-campaigns', title: 'UTM campaigns', rows: u.campaigns, labelKey: 'utm_campaign', labelHead: 'Campaign' }),
      );
      if (announceDone && !firstError) announce(`Analytics for the last ${label} updated.`);
    }

    statsBox.append(h('p', { class: 'loading' }, 'Loading\u2026'));
    await load(false);
  }

  // ---------------------------------------------------------------- boot

  function wireShell() {
    $('#banner-close').addEventListener('click', () => { hideBanner(); $('#main').focus(); });
    $('#nav-toggle').addEventListener('click', () => {
      const nav = $('#sidenav');
      const open = !nav.classList.contains('open');
      nav.classList.toggle('open', open);
      $('#nav-toggle').setAttribute('aria-expanded', String(open));
      if (open) { const first = $('a', nav); if (first) first.focus(); }
    });
    document.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape' && $('#sidenav').classList.contains('open')) { closeNav(); $('#nav-toggle').focus(); }
    });
    document.addEventListener('click', (ev) => {
      const a = ev.target instanceof Element ? ev.target.closest('a[data-nav]') : null;
      if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
      ev.preventDefault();
      closeNav();
      navigate(a.getAttribute('href'));
    });
    window.addEventListener('popstate', () => render());
    let resizeTimer = 0;
    window.addEventListener('resize', () => {
      window.clearTimeout(resizeTimer);
      resizeTimer = window.setTimeout(() => { if (state.onResize) state.onResize(); }, 150);
    });
  }

  async function boot() {
    wireShell();
    devLoginEnabled(); // start the probe early; the sign-in screen awaits it
    try {
      state.me = await api('GET', '/v1/me');
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) { render(); return; } // a public page, or /login
      setMain(pageHead('Shipmate is unavailable'),
        h('section', { class: 'card' }, h('p', null, 'The dashboard could not reach the server.'),
          h('button', { type: 'button', onclick: () => window.location.reload() }, 'Try again')));
      showError(e, 'Could not load your account');
      return;
    }
    renderAccount();
    render();
  }

  // The surface the other dashboard scripts (loaded after this one, `defer`) build their views with.
  window.Shipmate = {
    ROOT, state, h, $, api, ApiError, q, announce, showError, hideBanner, showFormError, clearFormErrors,
    setFieldError, field, options, formErr, confirmDialog, busy, copyText, timeEl, badge, capitalize, nextId,
    setMain, setLoading, setTitle, pageHead, navigate, projectPath, renderAccount, loadProject, signOut,
    devLoginEnabled,
    fmtNum, plural, shortId, statusLabel, later, emailOffNotice,
    /** Adds a project section before `before`; with `roles`, the navigation lists it only for those. */
    registerSection(id, label, view, before, roles) {
      const at = SECTIONS.findIndex(([s]) => s === before);
      SECTIONS.splice(at < 0 ? SECTIONS.length : at, 0, roles ? [id, label, roles] : [id, label]);
      SCREENS[id] = view;
    },
    registerPage(name, view) { PAGES[name] = view; },
    registerPublic(pattern, view) { PUBLIC.push([pattern, view]); },
  };

  // Deferred scripts run before DOMContentLoaded, so every view is registered when boot() runs.
  if (document.readyState === 'complete') boot();
  else document.addEventListener('DOMContentLoaded', boot);
})();
