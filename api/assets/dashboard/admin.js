// Shipmate dashboard: the instance admin's page, at /dashboard/admin (linked from the account menu
// for admins only): every user, with admin rights, disabling and password-reset links, how people
// get in (registration policy, email, identity providers), and the email addresses suppressed after
// a permanent delivery failure, each of which can be lifted. Shapes: docs/accounts.md, "Instance
// admin"; docs/email.md.

import { badge, emailOffNotice, h, timeEl } from './dom.js';
import { api } from './api.js';
import { ROOT, state } from './state.js';
import { announce, busy, confirmDialog, copyText, pageHead, setMain, setTitle, showError } from './ui.js';
import { navigate, renderAccount } from './router.js';

const REGISTRATION = {
  open: ['Open', 'anyone can create an account.'],
  invite: ['By invitation', 'only people with a pending invitation can create an account.'],
  closed: ['Closed', 'no new accounts; only invitations into existing accounts and the setup link work.'],
};

export async function screenAdmin({ alive }) {
  setTitle('Instance admin');
  if (!state.me.is_admin) {
    setMain(pageHead('Instance admin'),
      h('section', { class: 'card' }, h('p', null, 'Only instance admins see this page.'), h('p', null, h('a', { href: ROOT, 'data-nav': '' }, 'Go to your projects'))));
    return;
  }
  const settingsBox = h('div', { 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading\u2026'));
  const usersBox = h('div', { 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading users\u2026'));
  const linkBox = h('div', { id: 'reset-link-box' });
  const suppressedBox = h('div', { 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading\u2026'));
  const suppressedErr = h('p', { class: 'form-err', role: 'alert', id: 'suppression-error' });
  setMain(
    pageHead('Instance admin', 'The people on this Shipmate, and how new ones get in.'),
    h('section', { class: 'card', 'aria-labelledby': 'users-title' }, h('h2', { id: 'users-title', tabindex: '-1' }, 'Users'), linkBox, usersBox),
    h('section', { class: 'card', 'aria-labelledby': 'instance-title' }, h('h2', { id: 'instance-title' }, 'Sign-in settings'), settingsBox),
    h('section', { class: 'card', 'aria-labelledby': 'suppressed-title' },
      h('h2', { id: 'suppressed-title', tabindex: '-1' }, 'Suppressed email addresses'),
      h('p', { class: 'muted' }, 'Addresses whose mail server refused a message for good (an SMTP 5xx). They get no notifications or changelog emails until lifted; invitations and password resets still go out.'),
      suppressedErr, suppressedBox),
  );
  let users = [];
  await Promise.all([loadSettings(), loadUsers(), loadSuppressions()]);

  async function loadSuppressions() {
    let list;
    try {
      list = (await api('GET', '/v1/admin/suppressions')).data || [];
    } catch (e) {
      if (!alive()) return;
      suppressedBox.removeAttribute('aria-busy');
      suppressedBox.replaceChildren();
      if (e.status === 401) { showError(e); return; }
      suppressedErr.textContent = `The suppressed addresses could not be loaded: ${e.message}`;
      return;
    }
    if (!alive()) return;
    suppressedBox.removeAttribute('aria-busy');
    if (!list.length) {
      suppressedBox.replaceChildren(h('p', { class: 'muted', id: 'no-suppressions' }, 'No suppressed addresses.'));
      return;
    }
    suppressedBox.replaceChildren(h('div', { class: 'table-wrap' }, h('table', { id: 'suppression-table', class: 'stack-sm' },
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'Email'), h('th', { scope: 'col' }, 'Reason'), h('th', { scope: 'col' }, 'Since'),
        h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, list.map(suppressionRow)))));
  }

  function suppressionRow(s) {
    const lift = h('button', { type: 'button', class: 'button-secondary button-small', 'aria-label': `Lift the suppression of ${s.email}` }, 'Lift');
    lift.addEventListener('click', async () => {
      if (!(await confirmDialog({
        title: `Lift the suppression of ${s.email}?`,
        text: 'Shipmate emails this address again. If its server refuses the next message for good, it is suppressed again.',
        ok: 'Lift',
        danger: false,
      }))) return;
      await busy(lift, async () => {
        suppressedErr.textContent = '';
        try {
          await api('DELETE', `/v1/admin/suppressions/${encodeURIComponent(s.email)}`);
        } catch (e) {
          if (e.status === 401) { showError(e); return; }
          suppressedErr.textContent = `Could not lift the suppression of ${s.email}: ${e.message}`;
          return;
        }
        announce(`${s.email} receives email again.`);
        await loadSuppressions();
        document.getElementById('suppressed-title').focus();
      });
    });
    return h('tr', { 'data-suppressed': s.email },
      h('td', { class: 'cell-clip' }, s.email),
      h('td', { class: 'small' }, s.reason || '\u2014'),
      h('td', null, timeEl(s.created_at)),
      h('td', { class: 'num' }, lift));
  }

  async function loadSettings() {
    let s;
    try {
      s = await api('GET', '/v1/admin/settings');
    } catch (e) {
      if (!alive()) return;
      settingsBox.replaceChildren(h('p', { class: 'muted' }, 'The settings could not be loaded.'));
      showError(e, 'Could not load the instance settings');
      return;
    }
    if (!alive()) return;
    settingsBox.removeAttribute('aria-busy');
    const [regName, regText] = REGISTRATION[s.registration] || [String(s.registration), ''];
    // Email and password is always on; `providers` lists the identity providers configured besides it.
    const providers = ['Email and password', ...(Array.isArray(s.providers) ? s.providers : [])
      .filter((p) => p && p !== 'password' && p.id !== 'password')
      .map((p) => (typeof p === 'string' ? p : p.name || p.id))];
    settingsBox.replaceChildren(h('dl', { class: 'facts', id: 'instance-settings' },
      h('dt', null, 'Registration'),
      h('dd', { id: 'setting-registration' }, h('strong', null, regName), regText ? ` \u2014 ${regText}` : null,
        h('span', { class: 'small muted block' }, 'Set with SHIPMATE_REGISTRATION (open, invite or closed).')),
      h('dt', null, 'Email'),
      h('dd', { id: 'setting-email' }, s.email_configured
        ? 'Configured: invitations, password resets, notifications and changelog entries are sent by email.'
        : ['Not configured: hand over invitation links yourself, and make password-reset links above.',
          emailOffNotice('admin-email-off', 'See docs/email.md for the forms of SHIPMATE_SMTP_URL.')]),
      h('dt', null, 'Sign-in methods'),
      h('dd', { id: 'setting-providers' }, providers.join(', '))));
  }

  async function loadUsers() {
    try {
      users = (await api('GET', '/v1/admin/users')).data || [];
    } catch (e) {
      if (!alive()) return;
      usersBox.replaceChildren(h('p', { class: 'muted' }, 'Users could not be loaded.'));
      showError(e, 'Could not load the users');
      return;
    }
    if (!alive()) return;
    usersBox.removeAttribute('aria-busy');
    drawUsers();
  }

  function drawUsers() {
    usersBox.replaceChildren(h('div', { class: 'table-wrap' }, h('table', { id: 'user-table', class: 'stack-sm' },
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Email'), h('th', { scope: 'col' }, 'Status'),
        h('th', { scope: 'col' }, 'Created'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, users.map(userRow)))));
  }

  function userRow(u) {
    const self = u.id === state.me.id;
    const adminBtn = h('button', { type: 'button', class: 'button-secondary button-small', 'data-action': 'admin' }, u.is_admin ? 'Remove admin' : 'Make admin');
    adminBtn.addEventListener('click', async () => {
      if (u.is_admin && !(await confirmDialog({
        title: `Remove admin rights from ${u.email}?`,
        text: self ? 'You lose access to this page at once.' : 'They keep their account and projects, but no longer manage users.',
        ok: 'Remove admin',
      }))) return;
      await update(u, { is_admin: !u.is_admin }, adminBtn, u.is_admin ? `${u.email} is no longer an admin.` : `${u.email} is now an admin.`);
    });
    const disableBtn = h('button', { type: 'button', class: u.disabled ? 'button-secondary button-small' : 'button-danger-quiet button-small', 'data-action': 'disable' }, u.disabled ? 'Enable' : 'Disable');
    disableBtn.addEventListener('click', async () => {
      if (!u.disabled && !(await confirmDialog({
        title: `Disable ${u.email}?`,
        text: 'They are signed out everywhere at once and cannot sign in until the account is enabled again. Their projects stay.',
        ok: 'Disable account',
      }))) return;
      await update(u, { disabled: !u.disabled }, disableBtn, u.disabled ? `${u.email} is enabled.` : `${u.email} is disabled.`);
    });
    const resetBtn = h('button', { type: 'button', class: 'button-secondary button-small', 'data-action': 'reset' }, 'Make reset link');
    resetBtn.addEventListener('click', () => busy(resetBtn, async () => {
      let res;
      try {
        res = await api('POST', `/v1/admin/users/${encodeURIComponent(u.id)}/password-reset`);
      } catch (e) {
        showError(e, `Could not make a reset link for ${u.email}`);
        return;
      }
      showLink(u, res && res.url);
    }));
    return h('tr', { 'data-user': u.email },
      h('td', { class: 'cell-clip' }, u.name || '\u2014', self ? h('span', { class: 'muted' }, ' (you)') : null),
      h('td', { class: 'cell-clip' }, u.email),
      h('td', null, h('span', { class: 'badges' },
        u.is_admin ? badge('role', 'admin', 'Admin') : null,
        u.disabled ? badge('status', 'rejected', 'Disabled') : badge('status', 'approved', 'Active'))),
      h('td', null, timeEl(u.created_at)),
      h('td', null, h('div', { class: 'button-row row-actions' }, adminBtn, disableBtn, resetBtn)));
  }

  async function update(u, body, btn, done) {
    await busy(btn, async () => {
      let fresh;
      try {
        fresh = await api('PATCH', `/v1/admin/users/${encodeURIComponent(u.id)}`, { body });
      } catch (e) {
        showError(e, `Could not change ${u.email}`); // 409 last_admin lands here
        return;
      }
      Object.assign(u, body, fresh && typeof fresh === 'object' ? fresh : {});
      announce(done);
      if (u.id === state.me.id && body.is_admin === false) {
        state.me.is_admin = false;
        renderAccount();
        navigate(ROOT);
        return;
      }
      drawUsers();
    });
  }

  function showLink(u, url) {
    const input = h('input', { type: 'text', id: 'reset-url', readOnly: true, value: url || '', spellcheck: 'false', 'aria-describedby': 'reset-url-hint' });
    input.addEventListener('focus', () => input.select());
    const close = h('button', { type: 'button', class: 'button-ghost button-small' }, 'Done');
    close.addEventListener('click', () => { linkBox.replaceChildren(); document.getElementById('users-title').focus(); });
    linkBox.replaceChildren(h('div', { class: 'once' },
      h('label', { for: 'reset-url' }, `Password reset link for ${u.email}`),
      h('div', { class: 'copy-row' }, input,
        h('button', { type: 'button', class: 'button-secondary', id: 'copy-reset', onclick: () => copyText(input.value, 'Reset link') }, 'Copy'), close),
      h('p', { class: 'hint', id: 'reset-url-hint' }, 'Shown only once. It works once, for one hour: hand it to them over a channel you trust.')));
    announce(`Reset link for ${u.email} made. Copy it now: it is shown only once.`);
    input.focus();
  }
}
