// Shipmate dashboard: the page frame and what every view says with it: the main area and title,
// the status toast, the error banner, errors beside form fields, the confirm dialog, busy buttons,
// copying, and timers that end with the screen.

import { $, h, capitalize, plural } from './dom.js';
import { ApiError } from './api.js';
import { state } from './state.js';

let toastTimer = 0;
export function announce(message) {
  const el = $('#status');
  el.textContent = '';
  // A fresh text node after clearing makes screen readers announce a repeated message too.
  window.setTimeout(() => { el.textContent = message; }, 30);
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => { if (el.textContent === message) el.textContent = ''; }, 5000);
}

export function hideBanner() {
  $('#banner').classList.add('hidden');
}

/** Shows an API problem (or any error) in the banner at the top of the page. */
export function showError(err, title) {
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

// What to do when the session ends: the router sets it (sign-in lives there, and it imports this).
let sessionEnded = () => {};
export function onSessionEnd(fn) {
  sessionEnded = fn;
}

/** A 401 on a session call means the cookie is gone or revoked: back to sign-in. */
export function handleAuthLoss(err) {
  if (err instanceof ApiError && err.status === 401 && !err.viaKey) {
    state.me = null;
    state.projects.clear();
    sessionEnded('Your session has ended. Please sign in again.');
    return true;
  }
  return false;
}

export function clearFormErrors(form) {
  form.querySelectorAll('[data-err-for]').forEach((el) => { el.textContent = ''; });
  form.querySelectorAll('[aria-invalid]').forEach((el) => el.removeAttribute('aria-invalid'));
  const fe = form.querySelector('.form-err');
  if (fe) fe.textContent = '';
}

export function setFieldError(form, field, message) {
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
export function showFormError(form, err, { conflictField } = {}) {
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

export function confirmDialog({ title, text, ok = 'Confirm', danger = true }) {
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
export async function busy(button, fn) {
  if (button) { button.disabled = true; button.setAttribute('aria-busy', 'true'); }
  try {
    return await fn();
  } finally {
    if (button && button.isConnected) { button.disabled = false; button.removeAttribute('aria-busy'); }
  }
}

export async function copyText(text, what) {
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

export function later(fn, ms) {
  const id = window.setTimeout(() => { state.timers.delete(id); fn(); }, ms);
  state.timers.add(id);
  return id;
}

export function stopTimers() {
  for (const id of state.timers) window.clearTimeout(id);
  state.timers.clear();
}

export function setMain(...nodes) {
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

export function setLoading(text) {
  const main = $('#main');
  main.setAttribute('aria-busy', 'true');
  main.replaceChildren(h('p', { class: 'loading' }, text || 'Loading\u2026'));
}

export function setTitle(...parts) {
  document.title = [...parts.filter(Boolean), 'Shipmate'].join(' \u00b7 ');
}

export function pageHead(title, subtitle, project, ...actions) {
  return h('div', { class: 'page-head' },
    h('div', null,
      project ? h('p', { class: 'eyebrow' }, project.name) : null,
      h('h1', { tabindex: '-1' }, title),
      subtitle ? h('p', { class: 'muted' }, subtitle) : null),
    actions.length ? h('div', { class: 'head-actions' }, actions) : null);
}

/**
 * The pager under a list: where the page sits in `total` (from the API's page object), with
 * Previous and Next calling `go(page)`. A list that fits one page says only how many it holds.
 */
export function pager(res, [one, many], go) {
  const total = Number(res.total) || 0;
  const per = Number(res.per_page) || total || 1;
  const page = Number(res.page) || 1;
  const pages = Math.max(1, Math.ceil(total / per));
  if (!total) return ''; // the empty list says so itself
  const count = h('span', { 'data-total': total }, plural(total, one, many));
  if (pages <= 1) return h('nav', { class: 'pager', 'aria-label': 'Pages' }, count);
  const prev = h('button', { type: 'button', class: 'button-secondary button-small', disabled: page <= 1, 'data-page': 'prev' }, 'Previous');
  const next = h('button', { type: 'button', class: 'button-secondary button-small', disabled: page >= pages, 'data-page': 'next' }, 'Next');
  prev.addEventListener('click', () => go(page - 1));
  next.addEventListener('click', () => go(page + 1));
  return h('nav', { class: 'pager', 'aria-label': 'Pages' },
    h('span', { 'aria-current': 'page', 'data-page-of': `${page}/${pages}` }, `Page ${page} of ${pages}`), ' \u00b7 ', count, prev, next);
}

/** The card sign-in, setup, reset and invite pages are drawn in. */
export function card(title, intro, ...children) {
  return h('section', { class: 'card signin', 'aria-labelledby': 'signin-title' },
    h('h1', { id: 'signin-title', tabindex: '-1' }, title),
    intro ? h('p', { class: 'muted', id: 'signin-intro' }, intro) : null,
    children);
}

/**
 * Takes a one-time token out of the address bar (and so out of the history and of what a shared
 * screen shows) once the page has read it.
 */
export function hideToken() {
  if (new URLSearchParams(window.location.search).has('token')) history.replaceState(null, '', window.location.pathname);
}
