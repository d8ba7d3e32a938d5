// Shipmate dashboard: the signed-in person's own account, at /dashboard/account: who they are, a
// password change, and their sessions (browsers and command lines), each of which can be ended.
// Shapes: docs/accounts.md, "Email and password". Uses window.Shipmate.
'use strict';

(() => {
  const S = window.Shipmate;
  const { h, api, ApiError, state, field, formErr, busy, announce, showError, showFormError, clearFormErrors, setFieldError, confirmDialog } = S;

  const MIN_PASSWORD = 10;

  function when(iso) {
    if (!iso) return '\u2014';
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return '\u2014';
    return h('time', { datetime: iso }, d.toLocaleString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' }));
  }

  async function screenAccount({ alive }) {
    const me = state.me;
    S.setTitle('Account');
    const sessionsBox = h('div', { 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading sessions\u2026'));
    const out = h('button', { type: 'button', class: 'button-secondary', id: 'account-sign-out' }, 'Sign out');
    out.addEventListener('click', (ev) => S.signOut(ev));

    S.setMain(
      S.pageHead('Account', 'Your sign-in details and where you are signed in.', null, out),
      h('div', { class: 'grid-2' },
        h('section', { class: 'card', 'aria-labelledby': 'profile-title' },
          h('h2', { id: 'profile-title' }, 'Profile'),
          h('dl', { class: 'facts', id: 'profile' },
            h('dt', null, 'Name'), h('dd', { id: 'profile-name' }, me.name || '\u2014'),
            h('dt', null, 'Email'), h('dd', { id: 'profile-email' }, me.email),
            me.is_admin ? [h('dt', null, 'Instance'), h('dd', null, 'Admin of this Shipmate. ', h('a', { href: `${S.ROOT}/admin`, 'data-nav': '' }, 'Manage users'))] : null)),
        passwordCard(me)),
      h('section', { class: 'card', 'aria-labelledby': 'sessions-title' },
        h('h2', { id: 'sessions-title', tabindex: '-1' }, 'Sessions'),
        h('p', { class: 'muted' }, 'Every browser and command line signed in to your account. Signing one out ends it at once; sessions also end after 30 days.'),
        sessionsBox),
    );
    await loadSessions();

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
        endAll ? h('div', { class: 'button-row' }, endAll) : null);
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

  S.registerPage('account', screenAccount);
})();
