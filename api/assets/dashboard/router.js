// Shipmate dashboard: the shell around the views: the account menu, the side navigation, client-side
// routing (every /dashboard path and the public account pages answer the same document), sign-in
// and sign-out, and the start. The route table comes from app.js.

import { $, h } from './dom.js';
import { api, ApiError, q } from './api.js';
import { ROOT, state } from './state.js';
import { myRole } from './roles.js';
import { busy, handleAuthLoss, hideBanner, onSessionEnd, pageHead, setLoading, setMain, setTitle, showError, stopTimers } from './ui.js';
import { renderVerifyNotice } from './verify-notice.js';

let routes = { home: null, sections: [], pages: {}, publicPages: [] };

export function renderAccount() {
  const box = $('#account');
  renderVerifyNotice();
  if (!state.me) { box.replaceChildren(); return; }
  const who = state.me.name && state.me.name.trim() ? `${state.me.name} (${state.me.email})` : state.me.email;
  box.replaceChildren(
    h('a', { class: 'account-link', id: 'account-link', href: `${ROOT}/account`, 'data-nav': '', title: who },
      h('span', { class: 'account-email' }, state.me.email), h('span', { class: 'account-short' }, 'Account')),
    state.me.is_admin ? h('a', { class: 'account-link', id: 'admin-link', href: `${ROOT}/admin`, 'data-nav': '' }, 'Admin') : '',
    h('button', { type: 'button', class: 'button-secondary button-small', id: 'sign-out', onclick: signOut }, 'Sign out'),
  );
}

export async function signOut(ev) {
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
    h('ul', null, routes.sections.filter((s) => mayOpen(project, s)).map(({ id, label }) => h('li', null,
      h('a', { href: projectPath(project, id), 'data-nav': '', 'aria-current': id === section ? 'page' : null }, label)))),
  );
}

/** A section with `roles` (webhooks: owners and admins) is listed only for those roles. */
function mayOpen(project, { roles }) {
  return !roles || roles.includes(myRole(project));
}

function closeNav() {
  $('#sidenav').classList.remove('open');
  $('#nav-toggle').setAttribute('aria-expanded', 'false');
}

function parseRoute(pathname) {
  const p = pathname.replace(/\/+$/, '');
  if (p === ROOT || p === '') return { name: 'projects' };
  const page = p.match(/^\/dashboard\/([a-z]+)$/);
  if (page && routes.pages[page[1]]) return { name: 'page', page: page[1] };
  const m = p.match(/^\/dashboard\/p\/([^/]+)(?:\/([a-z]+))?(?:\/([^/]+))?(?:\/([^/]+))?$/);
  if (m) {
    return {
      name: 'project',
      projectId: decodeURIComponent(m[1]),
      section: m[2] || '',
      sub: m[3] ? decodeURIComponent(m[3]) : null,
      sub2: m[4] ? decodeURIComponent(m[4]) : null, // a thing inside `sub` (a document of an index)
    };
  }
  return { name: 'notfound' };
}

export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  render();
}

export function projectPath(project, section, ...subs) {
  return `${ROOT}/p/${encodeURIComponent(project.id)}/${section}${subs.filter(Boolean).map((s) => `/${encodeURIComponent(s)}`).join('')}`;
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
  if (route.name === 'projects') { renderNav(null); await routes.home({ alive }); return; }
  if (route.name === 'page') { renderNav(null); await routes.pages[route.page]({ alive }); return; }
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
  const section = routes.sections.find((s) => s.id === route.section);
  if (!section) { navigate(projectPath(project, routes.sections[0].id), { replace: true }); return; }
  renderNav(project, section.id);
  await section.view({ project, alive, sub: route.sub, sub2: route.sub2 });
}

function publicPage(pathname) {
  for (const [pattern, view] of routes.publicPages) {
    const match = pathname.match(pattern);
    if (match) return { match, view };
  }
  return null;
}

export async function loadProject(id) {
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

export function devLoginEnabled() {
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

/**
 * Takes the route table and shows the page at the current address. `home` is /dashboard; each of
 * `sections` is a project's /dashboard/p/<id>/<section> (the first is the default) and `roles`, when
 * given, lists who sees it; `pages` are /dashboard/<name>; `publicPages` are [pattern, view] pairs
 * rendered without a session. Module scripts run once the document is parsed, so the shell is there.
 */
export async function start(table) {
  routes = table;
  onSessionEnd(renderSignIn);
  wireShell();
  try {
    state.me = await api('GET', '/v1/me');
  } catch (e) {
    // A public page, or /login. Only now is the dev-login probe worth its request: signed in, its
    // answer (a 404 or 422 by design) would be a failed request in the console for nothing.
    if (e instanceof ApiError && e.status === 401) { devLoginEnabled(); render(); return; }
    setMain(pageHead('Shipmate is unavailable'),
      h('section', { class: 'card' }, h('p', null, 'The dashboard could not reach the server.'),
        h('button', { type: 'button', onclick: () => window.location.reload() }, 'Try again')));
    showError(e, 'Could not load your account');
    return;
  }
  renderAccount();
  render();
}
