// Shipmate dashboard: the public account pages, which the shell renders without a session:
// /login, /register, /setup?token=... and /reset-password?token=... (/invite/<token> is invite.js).
// Request and response shapes: docs/accounts.md. The invitation page builds on the pieces exported here.

import { capitalize, field, formErr, h } from './dom.js';
import { api, ApiError, q } from './api.js';
import { ROOT, state } from './state.js';
import { announce, busy, card, clearFormErrors, hideToken, setFieldError, setLoading, setMain, setTitle } from './ui.js';
import { devLoginEnabled, navigate, renderAccount } from './router.js';

// The CLI's listener; the api validates `cli_callback`, this only refuses to leave for anything else.
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost):\d{1,5}\//;
/** The shortest new password the server takes. */
export const MIN_PASSWORD = 10;

/** `next` when it is a path on this site (one leading slash, no scheme or host), else null. */
function safeNext(value) {
  if (typeof value !== 'string' || !/^\/(?![/\\])/.test(value)) return null;
  try {
    const u = new URL(value, window.location.origin);
    return u.origin === window.location.origin ? u.pathname + u.search + u.hash : null;
  } catch (e) {
    return null;
  }
}

/**
 * GET /v1/auth/providers: `{data, registration, setup_required}`; a failure reads as "nothing known".
 * Not cached: `setup_required` turns false once the setup page has made the first account.
 */
function providers() {
  return api('GET', '/v1/auth/providers').then(
    (r) => ({ data: Array.isArray(r && r.data) ? r.data : [], registration: (r && r.registration) || 'invite', setup_required: Boolean(r && r.setup_required) }),
    () => ({ data: [], registration: 'invite', setup_required: false }),
  );
}

/**
 * Shows a failed submission inside its form. Unlike showFormError (ui.js) it never treats a 401
 * as a lost session (on these pages 401 means a wrong password or token). `messages` maps a
 * problem `code` (or HTTP status) to a friendlier sentence.
 */
function fail(form, err, messages = {}) {
  clearFormErrors(form);
  const e = err instanceof ApiError ? err : new ApiError(0, { detail: String((err && err.message) || err) });
  let first = null;
  for (const fe of e.errors) first = setFieldError(form, fe.field, fe.message) || first;
  const custom = messages[e.code] || messages[e.status];
  const slot = form.querySelector('.form-err');
  if (custom || !first) {
    const text = custom || capitalize(e.message);
    // Set after a tick, so the alert is announced again when the same error repeats.
    window.setTimeout(() => { slot.textContent = text; }, 30);
  }
  if (first && typeof first.focus === 'function') first.focus();
}

function tooShort(form, input) {
  if (input.value.length >= MIN_PASSWORD) return false;
  setFieldError(form, input.name, `must be at least ${MIN_PASSWORD} characters`).focus();
  return true;
}

function input(type, name, autocomplete, extra = {}) {
  return h('input', { type, name, autocomplete, required: true, spellcheck: 'false', autocapitalize: 'off', ...extra });
}

/** After any sign-in: load the account, then go on (`replace`: Back does not return to the form). */
async function signedIn(form, next) {
  try {
    state.me = await api('GET', '/v1/me');
  } catch (e) {
    form.querySelector('.form-err').textContent = e instanceof ApiError && e.status === 401
      ? 'Signed in, but the server did not set the session cookie. Reload the page and try again.'
      : capitalize(e.message);
    return false;
  }
  state.projects.clear();
  renderAccount();
  announce(`Signed in as ${state.me.email}.`);
  navigate(next || ROOT, { replace: true });
  return true;
}

/** While a page loads: not a setMain, so the first screen after a reload does not move focus. */
export const loadingCard = () => setLoading();

// ---------------------------------------------------------------- /login

export async function loginPage({ alive, params }) {
  const next = safeNext(params.get('next'));
  const cli = params.get('cli_callback');
  const cliState = params.get('state');
  if (state.me && !cli) { navigate(next || ROOT, { replace: true }); return; }
  const flash = state.flash;
  state.flash = '';
  setTitle('Sign in');
  loadingCard('Sign in to Shipmate');
  const [info, dev] = await Promise.all([providers(), devLoginEnabled()]);
  if (!alive()) return;

  const email = input('email', 'email', 'email');
  const password = input('password', 'password', 'current-password');
  const submit = h('button', { type: 'submit' }, 'Sign in');
  const form = h('form', { id: 'login-form', novalidate: '' },
    field({ id: 'login-email', label: 'Email', control: email }),
    field({ id: 'login-password', label: 'Password', control: password }),
    formErr(),
    submit);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    const body = { email: email.value.trim(), password: password.value };
    if (cli) { body.cli_callback = cli; if (cliState) body.state = cliState; }
    await busy(submit, async () => {
      let res;
      try {
        res = await api('POST', '/v1/auth/login', { body });
      } catch (e) {
        fail(form, e, {
          invalid_credentials: 'Wrong email or password.',
          account_disabled: 'This account is disabled. An instance admin can enable it again.',
        });
        if (e instanceof ApiError && e.status === 401) password.select();
        return;
      }
      if (!cli) { await signedIn(form, next); return; }
      if (res && typeof res.redirect === 'string' && LOOPBACK.test(res.redirect)) {
        setMain(card('Signed in', 'Handing the session to the shipmate command line. You can close this tab once it says so.'));
        window.location.assign(res.redirect);
      } else {
        form.querySelector('.form-err').textContent = 'Signed in, but the server gave no address to hand the session to the command line. Run shipmate login again.';
      }
    });
  });

  const start = (id) => `/v1/auth/${encodeURIComponent(id)}/start?${cli ? q({ cli_callback: cli, state: cliState }) : q({ redirect_to: next || ROOT })}`;
  const others = info.data.filter((p) => p && p.id && p.id !== 'password');
  const back = next ? `?${q({ next })}` : '';
  let intro = 'Collect feedback and testimonials, publish your changelog, search your docs and see who visits.';
  if (cli) intro = 'Sign in to hand a session to the shipmate command line.';
  if (flash) intro = flash;

  setMain(card('Sign in to Shipmate', intro,
    info.setup_required ? h('div', { class: 'notice', id: 'setup-required', role: 'status' },
      h('p', null, h('strong', null, 'This Shipmate instance is not set up yet.')),
      h('p', null, 'Open the setup link from the server\u2019s log (the line \u201cfirst run: create the instance admin at \u2026/setup?token=\u2026\u201d) to create the first account.')) : null,
    form,
    forgotPassword(email),
    others.length ? h('div', { class: 'divider' }, 'or') : null,
    others.length ? h('div', { class: 'providers' }, others.map((p) => h('a', { class: 'button button-secondary', href: start(p.id) }, `Continue with ${p.name || p.id}`))) : null,
    dev && !cli ? devLoginForm(next) : null,
    info.registration === 'open' && !cli ? h('p', { class: 'signin-foot' }, 'New to this Shipmate? ', h('a', { href: `/register${back}`, 'data-nav': '', id: 'register-link' }, 'Create an account')) : null));
}

/** "Forgot your password?": a disclosure with one email field; the answer never says whether the account exists. */
function forgotPassword(loginEmail) {
  const email = input('email', 'email', 'email');
  const submit = h('button', { type: 'submit', class: 'button-secondary' }, 'Email me a reset link');
  const done = h('p', { class: 'form-ok', role: 'status' });
  const form = h('form', { id: 'reset-request', class: 'hidden', novalidate: '' },
    field({ id: 'reset-email', label: 'Your account\u2019s email', control: email, hint: 'If this server sends no email, an instance admin can make a reset link for you.' }),
    formErr(),
    submit,
    done);
  const toggle = h('button', { type: 'button', class: 'button-link', id: 'forgot-password', 'aria-expanded': 'false', 'aria-controls': 'reset-request' }, 'Forgot your password?');
  toggle.addEventListener('click', () => {
    const open = form.classList.toggle('hidden') === false;
    toggle.setAttribute('aria-expanded', String(open));
    if (open) { if (!email.value) email.value = loginEmail.value.trim(); email.focus(); }
  });
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    done.textContent = '';
    await busy(submit, async () => {
      try {
        await api('POST', '/v1/auth/password-reset', { body: { email: email.value.trim() } });
      } catch (e) {
        fail(form, e);
        return;
      }
      window.setTimeout(() => { done.textContent = 'If an account exists for that address, an email with a reset link is on its way.'; }, 30);
    });
  });
  return h('div', { class: 'forgot' }, toggle, form);
}

/** Development sign-in (SHIPMATE_DEV_LOGIN=1 on the api): an email, no password. */
function devLoginForm(next) {
  const email = input('email', 'email', 'email');
  const submit = h('button', { type: 'submit', class: 'button-secondary' }, 'Sign in with email');
  const form = h('form', { id: 'dev-login', novalidate: '' },
    field({ id: 'dev-email', label: 'Email (development sign-in)', control: email, hint: 'SHIPMATE_DEV_LOGIN=1: no password, never enable it in production.' }),
    formErr(),
    submit);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    await busy(submit, async () => {
      try {
        await api('POST', '/v1/auth/dev-login', { body: { email: email.value.trim() } });
      } catch (e) {
        fail(form, e);
        return;
      }
      await signedIn(form, next);
    });
  });
  return h('div', null, h('div', { class: 'divider' }, 'or'), form);
}

// ---------------------------------------------------------------- accounts: register, setup, reset

/** Name, email and a new password. `email` given: fixed (an invite names it). Calls `send(body)`. */
export function accountForm({ id, email: fixedEmail, button, send, messages }) {
  const name = h('input', { type: 'text', name: 'name', autocomplete: 'name', required: true, maxlength: '200' });
  const email = input('email', 'email', 'email', fixedEmail ? { value: fixedEmail, readOnly: true } : {});
  const password = input('password', 'password', 'new-password', { minlength: String(MIN_PASSWORD), maxlength: '256' });
  const submit = h('button', { type: 'submit' }, button);
  const form = h('form', { id, novalidate: '' },
    field({ id: `${id}-name`, label: 'Name', control: name }),
    field({ id: `${id}-email`, label: 'Email', control: email, hint: fixedEmail ? 'The invitation is for this address.' : null }),
    field({ id: `${id}-password`, label: 'Password', control: password, hint: `${MIN_PASSWORD} to 256 characters.` }),
    formErr(),
    submit);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    if (!name.value.trim()) { setFieldError(form, 'name', 'is required').focus(); return; }
    if (!email.value.trim()) { setFieldError(form, 'email', 'is required').focus(); return; }
    if (tooShort(form, password)) return;
    await busy(submit, async () => {
      try {
        await send({ name: name.value.trim(), email: email.value.trim(), password: password.value });
      } catch (e) {
        fail(form, e, messages);
        return;
      }
      await signedIn(form, form.dataset.next || null);
    });
  });
  return form;
}

export const REGISTER_MESSAGES = {
  conflict: 'An account with this email exists already: sign in instead.',
  registration_closed: 'This Shipmate does not take new accounts without an invitation.',
};

export async function registerPage({ alive, params }) {
  const next = safeNext(params.get('next'));
  // /register?invite=<token>: the invitation page has the form, with the invited email filled in.
  if (params.get('invite')) { navigate(`/invite/${encodeURIComponent(params.get('invite'))}`, { replace: true }); return; }
  if (state.me) { navigate(next || ROOT, { replace: true }); return; }
  setTitle('Create an account');
  loadingCard('Create an account');
  const info = await providers();
  if (!alive()) return;
  const login = h('p', { class: 'signin-foot' }, 'Have an account? ', h('a', { href: `/login${next ? `?${q({ next })}` : ''}`, 'data-nav': '' }, 'Sign in'));
  if (info.registration !== 'open') {
    setMain(card('Create an account', 'Accounts on this Shipmate are made by invitation: open the invite link a project\u2019s admin sent you.', login));
    return;
  }
  const form = accountForm({
    id: 'register', button: 'Create account', messages: REGISTER_MESSAGES,
    send: (body) => api('POST', '/v1/auth/register', { body }),
  });
  if (next) form.dataset.next = next;
  setMain(card('Create an account', null, form, login));
}

export async function setupPage({ params }) {
  const token = params.get('token') || '';
  hideToken();
  setTitle('Set up Shipmate');
  const signIn = h('p', { class: 'signin-foot' }, h('a', { href: '/login', 'data-nav': '' }, 'Go to sign-in'));
  // The link opened again after the setup: say so at once, not after a filled-in form.
  if (!(await providers()).setup_required) {
    setMain(card('Shipmate is set up', 'This Shipmate is set up already: its admin account exists. Sign in instead.', signIn));
    return;
  }
  if (!token) {
    setMain(card('Set up Shipmate', 'Open the setup link from the server\u2019s log: it carries a token that changes at every start.', signIn));
    return;
  }
  const form = accountForm({
    id: 'setup', button: 'Create the admin account',
    messages: {
      401: 'This setup link is not valid: the token changes at every start of the server. Use the latest link from its log.',
      already_set_up: 'This Shipmate is set up already. Sign in instead.',
    },
    send: (body) => api('POST', '/v1/auth/setup', { body: { token, ...body } }),
  });
  setMain(card('Set up Shipmate', 'Create the first account. It is the instance admin, who can make other admins and reset passwords.', form, signIn));
}

export async function resetPage({ params }) {
  const token = params.get('token') || '';
  hideToken();
  setTitle('Choose a new password');
  const again = h('p', { class: 'signin-foot' }, h('a', { href: '/login', 'data-nav': '' }, 'Back to sign-in'));
  if (!token) {
    setMain(card('Choose a new password', 'This reset link is incomplete. Open the whole link from the email, or ask for a new one.', again));
    return;
  }
  const password = input('password', 'password', 'new-password', { minlength: String(MIN_PASSWORD), maxlength: '256' });
  const repeat = input('password', 'repeat', 'new-password');
  const submit = h('button', { type: 'submit' }, 'Set password and sign in');
  const form = h('form', { id: 'reset-form', novalidate: '' },
    field({ id: 'reset-password', label: 'New password', control: password, hint: `${MIN_PASSWORD} to 256 characters. Your other sessions end.` }),
    field({ id: 'reset-repeat', label: 'Repeat the new password', control: repeat }),
    formErr(),
    submit);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    if (tooShort(form, password)) return;
    if (repeat.value !== password.value) { setFieldError(form, 'repeat', 'does not match the new password').focus(); return; }
    await busy(submit, async () => {
      try {
        await api('POST', '/v1/auth/password-reset/confirm', { body: { token, password: password.value } });
      } catch (e) {
        const expired = 'This reset link has expired or was used already (links last one hour and work once). Ask for a new one.';
        fail(form, e, { 401: expired, 404: expired, 410: expired });
        return;
      }
      await signedIn(form, ROOT);
    });
  });
  setMain(card('Choose a new password', null, form, again));
}
