// Shipmate dashboard: the invitation page, /invite/<token>, rendered with or without a session.
// It shows the project and role (GET /v1/invites/<token>), then offers: signed in with the invited
// email, Accept; signed in with another, sign out; signed out, create the account (registration by
// invite) or sign in instead. Shapes: docs/accounts.md, "Teams and roles". Builds on the pieces
// of auth.js.

import { capitalize, formErr, h, timeEl } from './dom.js';
import { api, ApiError, q } from './api.js';
import { ROOT, state } from './state.js';
import { ROLES } from './roles.js';
import { announce, busy, card, setMain, setTitle, showError } from './ui.js';
import { navigate, renderAccount } from './router.js';
import { accountForm, loadingCard, REGISTER_MESSAGES } from './auth.js';

export async function invitePage({ alive, match }) {
  let token = match[1];
  try { token = decodeURIComponent(token); } catch (e) { /* keep it as it came */ }
  const path = `/v1/invites/${encodeURIComponent(token)}`;
  setTitle('Invitation');
  loadingCard('Invitation');
  let inv;
  try {
    inv = await api('GET', path);
  } catch (e) {
    if (!alive()) return;
    if (e instanceof ApiError && [404, 410].includes(e.status)) {
      setMain(card('This invitation is not valid', 'It was used, revoked or has expired (invitations last 7 days). Ask the project\u2019s admin for a new one.',
        h('p', { class: 'signin-foot' }, h('a', { href: state.me ? ROOT : '/login', 'data-nav': '' }, state.me ? 'Go to your projects' : 'Sign in'))));
    } else {
      setMain(card('Invitation', 'The invitation could not be loaded.'));
      showError(e, 'Could not load the invitation');
    }
    return;
  }
  if (!alive()) return;
  const project = inv.project || {};
  const [roleName, roleMay] = ROLES[inv.role] || [inv.role, ''];
  const title = `Join ${project.name || 'a project'}`;
  setTitle(title);
  const about = h('p', { id: 'invite-about' }, 'You are invited as ', h('strong', { id: 'invite-role' }, roleName),
    roleMay ? ` (${roleMay})` : '', '. ', inv.expires_at ? h('span', { class: 'muted' }, 'Valid until ', timeEl(inv.expires_at), '.') : null);
  const goToProject = () => navigate(`${ROOT}/p/${encodeURIComponent(project.id || '')}/feedback`, { replace: true });

  if (state.me && state.me.email.toLowerCase() === String(inv.email).toLowerCase()) {
    const accept = h('button', { type: 'button', id: 'accept-invite' }, 'Accept invitation');
    const err = formErr();
    accept.addEventListener('click', () => busy(accept, async () => {
      try {
        const res = await api('POST', `${path}/accept`);
        if (res && res.project_id) project.id = res.project_id;
      } catch (e) {
        err.textContent = e instanceof ApiError && e.status === 410
          ? 'This invitation has expired or was used already.' : capitalize(e.message);
        return;
      }
      state.projects.clear();
      announce(`You joined ${project.name}.`);
      goToProject();
    }));
    setMain(card(title, null, about, err, accept));
    return;
  }
  if (state.me) {
    const out = h('button', { type: 'button', class: 'button-secondary', id: 'invite-sign-out' }, 'Sign out');
    out.addEventListener('click', () => busy(out, async () => {
      try { await api('POST', '/v1/auth/logout'); } catch (e) { /* a dead session is as good as signed out */ }
      state.me = null;
      state.projects.clear();
      renderAccount();
      navigate(window.location.pathname, { replace: true });
    }));
    setMain(card(title, null, about,
      h('p', { class: 'notice', id: 'invite-other-email' }, `This invitation is for ${inv.email}, but you are signed in as ${state.me.email}. Sign out, then accept it with that address.`),
      out));
    return;
  }
  const form = accountForm({
    id: 'invite-register', email: inv.email, button: 'Create account and join', messages: REGISTER_MESSAGES,
    send: async (body) => {
      await api('POST', '/v1/auth/register', { body: { ...body, invite: token } });
      // Registering with an invite accepts it; should this server not have, accept it now.
      try {
        const mine = (await api('GET', '/v1/projects')).data || [];
        if (!mine.some((p) => p.id === project.id)) await api('POST', `${path}/accept`);
      } catch (e) {
        // The account exists and is signed in either way; the project screen tells the rest.
      }
    },
  });
  form.dataset.next = `${ROOT}/p/${encodeURIComponent(project.id || '')}/feedback`;
  setMain(card(title, null, about,
    h('h2', null, 'Create your account'),
    form,
    h('p', { class: 'signin-foot' }, 'Have an account already? ',
      h('a', { href: `/login?${q({ next: window.location.pathname })}`, 'data-nav': '', id: 'invite-sign-in' }, 'Sign in instead'))));
}
