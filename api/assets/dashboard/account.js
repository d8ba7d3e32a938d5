// Shipmate dashboard: the signed-in person's own account, at /dashboard/account: who they are, a
// password change, their email notifications per project, and their sessions (browsers and command
// lines), each of which can be ended, and personal access tokens (tokens.js). Shapes: docs/accounts.md, "Email and password"; docs/email.md.

import { emailOffNotice, field, formErr, h } from './dom.js';
import { api, ApiError } from './api.js';
import { ROOT, state } from './state.js';
import { announce, busy, clearFormErrors, confirmDialog, pageHead, setFieldError, setMain, setTitle, showError, showFormError } from './ui.js';
import { signOut } from './router.js';
import { MIN_PASSWORD } from './auth.js';
import { tokensCard } from './tokens.js';

// The member's own notification settings, per project (GET/PUT /v1/projects/:id/notifications).
// `weekly_report` is opt-in for everyone: a summary of the project's analytics, by email.
const NOTIFICATIONS = [['new_feedback', 'New feedback'], ['new_testimonial', 'New testimonials'], ['weekly_report', 'Weekly analytics report'], ['analytics_alerts', 'Analytics alerts going off']];

function when(iso) {
  if (!iso) return '\u2014';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '\u2014';
  return h('time', { datetime: iso }, d.toLocaleString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' }));
}

export async function screenAccount({ alive }) {
  const me = state.me;
  setTitle('Account');
  const sessionsBox = h('div', { 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading sessions\u2026'));
  const notifyBox = h('div', { 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading projects\u2026'));
  const out = h('button', { type: 'button', class: 'button-secondary', id: 'account-sign-out' }, 'Sign out');
  out.addEventListener('click', (ev) => signOut(ev));
  const tokens = tokensCard({ alive });

  setMain(
    pageHead('Account', 'Your sign-in details and where you are signed in.', null, out),
    h('div', { class: 'grid-2' },
      h('section', { class: 'card', 'aria-labelledby': 'profile-title' },
        h('h2', { id: 'profile-title' }, 'Profile'),
        h('dl', { class: 'facts', id: 'profile' },
          h('dt', null, 'Name'), h('dd', { id: 'profile-name' }, me.name || '\u2014'),
          h('dt', null, 'Email'), h('dd', { id: 'profile-email' }, me.email),
          me.is_admin ? [h('dt', null, 'Instance'), h('dd', null, 'Admin of this Shipmate. ', h('a', { href: `${ROOT}/admin`, 'data-nav': '' }, 'Manage users'))] : null)),
      passwordCard(me)),
    h('section', { class: 'card', 'aria-labelledby': 'notify-title' },
      h('h2', { id: 'notify-title' }, 'Email notifications'),
      h('p', { class: 'muted' }, `Emails to ${me.email} when something arrives in a project. Owners get them unless they turn them off; everyone else chooses here. The weekly analytics report goes only to those who turn it on.`),
      notifyBox),
    h('section', { class: 'card', 'aria-labelledby': 'sessions-title' },
      h('h2', { id: 'sessions-title', tabindex: '-1' }, 'Sessions'),
      h('p', { class: 'muted' }, 'Every browser and command line signed in to your account. Signing one out ends it at once; sessions also end after 30 days.'),
      sessionsBox),
    tokens.card,
  );
  await Promise.all([loadSessions(), loadNotifications(), tokens.load()]);

  async function loadNotifications() {
    let projects;
    try {
      projects = (await api('GET', '/v1/projects')).data || [];
    } catch (e) {
      if (!alive()) return;
      notifyBox.replaceChildren(h('p', { class: 'muted' }, 'Your projects could not be loaded.'));
      showError(e, 'Could not load your projects');
      return;
    }
    if (!alive()) return;
    if (!projects.length) {
      notifyBox.removeAttribute('aria-busy');
      notifyBox.replaceChildren(h('p', { class: 'muted' }, 'You are not in any project yet.'));
      return;
    }
    const settled = await Promise.allSettled(projects.map((p) => api('GET', `/v1/projects/${encodeURIComponent(p.id)}/notifications`)));
    if (!alive()) return;
    notifyBox.removeAttribute('aria-busy');
    const lost = settled.find((r) => r.status === 'rejected' && r.reason instanceof ApiError && r.reason.status === 401);
    if (lost) { showError(lost.reason); return; }
    const emailOff = settled.some((r) => r.status === 'fulfilled' && r.value && r.value.email_configured === false);
    notifyBox.replaceChildren(
      emailOff ? emailOffNotice('notify-email-off', 'Until then your choices are kept, but nothing is sent.') : '',
      h('ul', { class: 'notify-list', id: 'notify-list' }, projects.map((p, i) => notifyItem(p, settled[i]))));
  }

  function notifyItem(project, result) {
    const err = h('p', { class: 'form-err', role: 'alert' });
    const label = h('strong', { id: `notify-name-${project.id}` }, project.name);
    if (result.status === 'rejected') {
      err.textContent = `Could not load the settings: ${result.reason && result.reason.message}`;
      return h('li', { class: 'notify-item', 'data-notify-project': project.id }, label, err);
    }
    const current = { ...result.value };
    const boxes = NOTIFICATIONS.map(([key, text]) => {
      const box = h('input', { type: 'checkbox', id: `notify-${project.id}-${key}`, 'data-setting': key, checked: Boolean(current[key]) });
      box.addEventListener('change', async () => {
        const wanted = box.checked;
        box.disabled = true;
        err.textContent = '';
        try {
          const saved = await api('PUT', `/v1/projects/${encodeURIComponent(project.id)}/notifications`, { body: { [key]: wanted } });
          Object.assign(current, saved || { [key]: wanted });
          announce(`${text} in \u201c${project.name}\u201d: ${current[key] ? 'emails on' : 'emails off'}.`);
        } catch (e) {
          if (e instanceof ApiError && e.status === 401) { showError(e); return; }
          err.textContent = `Could not save: ${e.message}`;
        } finally {
          if (box.isConnected) { box.disabled = false; box.checked = Boolean(current[key]); }
        }
      });
      return h('label', { class: 'check', for: box.id }, box, text);
    });
    return h('li', { class: 'notify-item', 'data-notify-project': project.id },
      h('span', null, label, project.role ? h('span', { class: 'muted small' }, ` (${String(project.role)})`) : null),
      h('div', { class: 'button-row', role: 'group', 'aria-labelledby': label.id }, boxes),
      err);
  }

  async function loadSessions() {
    let sessions;
    try {
      sessions = (await api('GET', '/v1/auth/sessions')).data || [];
    } catch (e) {
      if (!alive()) return;
      sessionsBox.replaceChildren(h('p', { class: 'muted' }, 'Sessions could not be loaded.'));
      showError(e, 'Could not load your sessions');
      return;
    }
    if (!alive()) return;
    sessionsBox.removeAttribute('aria-busy');
    sessions.sort((a, b) => Number(b.current) - Number(a.current) || String(b.last_used_at).localeCompare(String(a.last_used_at)));
    const others = sessions.filter((s) => !s.current);
    const endAll = others.length > 1 ? h('button', { type: 'button', class: 'button-danger-quiet', id: 'end-other-sessions' }, 'Sign out all other sessions') : null;
    if (endAll) endAll.addEventListener('click', () => endSessions(others, endAll, 'Sign out all other sessions?', `${others.length} other sessions end at once.`));
    sessionsBox.replaceChildren(
      h('div', { class: 'table-wrap' }, h('table', { id: 'session-table' },
        h('thead', null, h('tr', null,
          h('th', { scope: 'col' }, 'Session'), h('th', { scope: 'col' }, 'Signed in'), h('th', { scope: 'col' }, 'Last used'),
          h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
        h('tbody', null, sessions.map((s) => {
          let action = h('span', { class: 'badge status-approved' }, 'This browser');
          if (!s.current) {
            action = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'data-end-session': s.id, 'aria-label': `Sign out the session last used ${new Date(s.last_used_at).toLocaleString()}` }, 'Sign out');
            action.addEventListener('click', () => endSessions([s], action, 'Sign out this session?', 'The browser or command line using it is signed out at once.'));
          }
          return h('tr', { 'data-session': s.id, 'data-current': s.current ? 'true' : null },
            h('td', null, h('code', { title: s.id }, `\u2026${String(s.id).slice(-8)}`), s.current ? h('span', { class: 'muted' }, ' (current)') : null),
            h('td', null, when(s.created_at)),
            h('td', null, when(s.last_used_at)),
            h('td', { class: 'num' }, action));
        })))),
      endAll ? h('div', { class: 'button-row' }, endAll) : ''); // replaceChildren would print a null
  }

  async function endSessions(list, btn, title, text) {
    if (!(await confirmDialog({ title, text, ok: 'Sign out' }))) return;
    await busy(btn, async () => {
      for (const s of list) {
        try {
          await api('DELETE', `/v1/auth/sessions/${encodeURIComponent(s.id)}`);
        } catch (e) {
          showError(e, 'Could not end the session');
          break;
        }
      }
      announce(list.length === 1 ? 'Session signed out.' : 'Other sessions signed out.');
      await loadSessions();
      const title2 = document.getElementById('sessions-title');
      if (title2) title2.focus();
    });
  }

  function passwordCard(user) {
    const current = h('input', { type: 'password', name: 'current_password', autocomplete: 'current-password' });
    const next = h('input', { type: 'password', name: 'password', autocomplete: 'new-password', required: true, minlength: String(MIN_PASSWORD), maxlength: '256' });
    const repeat = h('input', { type: 'password', name: 'repeat', autocomplete: 'new-password', required: true });
    const submit = h('button', { type: 'submit' }, 'Change password');
    const form = h('form', { id: 'password-form', novalidate: '' },
      // For password managers: which account this password belongs to.
      h('input', { type: 'email', name: 'username', autocomplete: 'username', value: user.email, readOnly: true, class: 'hidden', tabindex: '-1', 'aria-hidden': 'true' }),
      field({ id: 'pw-current', label: 'Current password', control: current, hint: 'Leave it empty if you have only ever signed in through an identity provider.' }),
      field({ id: 'pw-new', label: 'New password', control: next, hint: `${MIN_PASSWORD} to 256 characters. Your other sessions end.` }),
      field({ id: 'pw-repeat', label: 'Repeat the new password', control: repeat }),
      formErr(),
      submit);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      clearFormErrors(form);
      if (next.value.length < MIN_PASSWORD) { setFieldError(form, 'password', `must be at least ${MIN_PASSWORD} characters`).focus(); return; }
      if (repeat.value !== next.value) { setFieldError(form, 'repeat', 'does not match the new password').focus(); return; }
      const body = { password: next.value };
      if (current.value) body.current_password = current.value;
      await busy(submit, async () => {
        try {
          await api('POST', '/v1/auth/password', { body });
        } catch (e) {
          // A wrong current password is not a lost session: keep it in the form.
          if (e instanceof ApiError && (e.code === 'invalid_credentials' || (e.status === 403 && !e.errors.length))) {
            setFieldError(form, 'current_password', e.code === 'invalid_credentials' ? 'is not right' : e.message).focus();
            return;
          }
          showFormError(form, e);
          return;
        }
        for (const el of [current, next, repeat]) el.value = '';
        announce('Password changed. Your other sessions were signed out.');
        await loadSessions();
      });
    });
    return h('section', { class: 'card', 'aria-labelledby': 'password-title' },
      h('h2', { id: 'password-title' }, 'Change password'), form);
  }
}
