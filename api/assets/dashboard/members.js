// Shipmate dashboard: a project's members and invitations, at /dashboard/p/<projectId>/members.
// Everyone sees the list and may leave; owners and admins change roles, remove members and invite
// (only owners touch owners). Shapes: docs/accounts.md, "Teams and roles".

import { badge, capitalize, emailOffNotice, field, formErr, h, options, timeEl } from './dom.js';
import { api } from './api.js';
import { ROOT, state } from './state.js';
import { myRole, roleLabel, ROLES } from './roles.js';
import { announce, busy, clearFormErrors, confirmDialog, copyText, pageHead, setMain, setTitle, showError, showFormError } from './ui.js';
import { navigate } from './router.js';

const ORDER = ['owner', 'admin', 'member', 'viewer'];

/** The roles `role` may hand out: owners all of them, admins all but owner. */
function grantable(role) {
  return ORDER.filter((r) => role === 'owner' || r !== 'owner');
}

export async function screenMembers(ctx) {
  const { project, alive } = ctx;
  const role = myRole(project);
  const manager = role === 'owner' || role === 'admin';
  const base = `/v1/projects/${encodeURIComponent(project.id)}`;
  const me = state.me || {};
  setTitle('Members', project.name);

  const listBox = h('div', { 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading members\u2026'));
  const invitesBox = h('div', { id: 'invites' });
  const emailBox = h('div'); // the "email is not configured" notice, once the server has said so
  let emailConfigured = null; // unknown until GET .../notifications answers
  const leave = h('button', { type: 'button', class: 'button-danger-quiet', id: 'leave-project' }, 'Leave project');
  leave.addEventListener('click', () => leaveProject(leave));

  setMain(
    pageHead('Members', manager
      ? 'Who works on this project, and with which role.'
      : `Who works on this project. You are ${/^[aeiou]/i.test(role) ? 'an' : 'a'} ${roleLabel(role).toLowerCase()}; owners and admins manage members.`, project, leave),
    h('section', { class: 'card', 'aria-labelledby': 'members-title' }, h('h2', { id: 'members-title' }, 'Members'), listBox),
    manager ? h('div', { class: 'grid-2' },
      inviteCard(),
      h('section', { class: 'card', 'aria-labelledby': 'invites-title' }, h('h2', { id: 'invites-title' }, 'Pending invitations'), invitesBox)) : null,
    h('section', { class: 'card', 'aria-labelledby': 'roles-title' },
      h('h2', { id: 'roles-title' }, 'Roles'),
      h('dl', { class: 'roles' }, ORDER.map((r) => [h('dt', null, badge('role', r, roleLabel(r))), h('dd', null, capitalize(ROLES[r][1]))]))),
  );
  await Promise.all([loadMembers(), manager ? loadInvites() : null, manager ? loadEmailStatus() : null]);

  /** Without SMTP the invitation email is not sent: say so where invitation links are made and shown. */
  async function loadEmailStatus() {
    try {
      const n = await api('GET', `${base}/notifications`);
      emailConfigured = !n || n.email_configured !== false;
    } catch (e) {
      return; // an older server, or a hiccup: the link hint still says to send the link yourself
    }
    if (!alive() || emailConfigured) return;
    emailBox.replaceChildren(emailOffNotice('invite-email-off', 'Invitations are not emailed: copy each invitation link and send it yourself.'));
  }

  async function loadMembers() {
    let members;
    try {
      members = (await api('GET', `${base}/members`)).data || [];
    } catch (e) {
      if (!alive()) return;
      listBox.replaceChildren(h('p', { class: 'muted' }, 'Members could not be loaded.'));
      showError(e, 'Could not load the members');
      return;
    }
    if (!alive()) return;
    listBox.removeAttribute('aria-busy');
    members.sort((a, b) => ORDER.indexOf(a.role) - ORDER.indexOf(b.role) || String(a.created_at).localeCompare(String(b.created_at)));
    listBox.replaceChildren(h('div', { class: 'table-wrap' }, h('table', { id: 'member-table', class: 'stack-sm' },
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Email'), h('th', { scope: 'col' }, 'Role'),
        h('th', { scope: 'col' }, 'Joined'), manager ? h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')) : null)),
      h('tbody', null, members.map(memberRow)))));
  }

  function memberRow(m) {
    const self = m.user_id === me.id;
    // Admins manage everyone but owners; only an owner changes an owner (docs/accounts.md).
    const mayChange = manager && (role === 'owner' || m.role !== 'owner');
    let roleCell = badge('role', m.role, roleLabel(m.role));
    if (mayChange) {
      const sel = h('select', { name: 'role', 'aria-label': `Role of ${m.email}`, 'data-role-of': m.email }, options(grantable(role).map((r) => [r, roleLabel(r)]), m.role));
      sel.addEventListener('change', () => changeRole(m, sel));
      roleCell = sel;
    }
    let action = null;
    if (mayChange && !self) {
      action = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'aria-label': `Remove ${m.email}` }, 'Remove');
      action.addEventListener('click', () => removeMember(m, action));
    }
    return h('tr', { 'data-member': m.email },
      h('td', { class: 'cell-clip' }, m.name || '\u2014', self ? h('span', { class: 'muted' }, ' (you)') : null),
      h('td', { class: 'cell-clip' }, m.email),
      h('td', { 'data-member-role': '' }, roleCell),
      h('td', null, timeEl(m.created_at)),
      manager ? h('td', { class: 'num' }, action) : null);
  }

  async function changeRole(m, sel) {
    const wanted = sel.value;
    sel.disabled = true;
    try {
      const updated = await api('PATCH', `${base}/members/${encodeURIComponent(m.user_id)}`, { body: { role: wanted } });
      m.role = (updated && updated.role) || wanted;
      announce(`${m.email} is now ${roleLabel(m.role).toLowerCase()}.`);
      if (m.user_id === me.id) { state.projects.delete(project.id); navigate(window.location.pathname, { replace: true }); return; }
    } catch (e) {
      sel.value = m.role; // the server kept the old role
      showError(e, `Could not change the role of ${m.email}`);
    } finally {
      if (sel.isConnected) sel.disabled = false;
    }
  }

  async function removeMember(m, btn) {
    const ok = await confirmDialog({
      title: `Remove ${m.name || m.email}?`,
      text: `${m.email} loses access to \u201c${project.name}\u201d at once. You can invite them again later.`,
      ok: 'Remove',
    });
    if (!ok) return;
    await busy(btn, async () => {
      try {
        await api('DELETE', `${base}/members/${encodeURIComponent(m.user_id)}`);
      } catch (e) {
        showError(e, `Could not remove ${m.email}`);
        return;
      }
      announce(`Removed ${m.email}.`);
      await loadMembers();
    });
  }

  async function leaveProject(btn) {
    const ok = await confirmDialog({
      title: `Leave \u201c${project.name}\u201d?`,
      text: 'You lose access to this project at once. An owner or admin can invite you again.',
      ok: 'Leave project',
    });
    if (!ok) return;
    await busy(btn, async () => {
      try {
        await api('DELETE', `${base}/members/${encodeURIComponent(me.id)}`);
      } catch (e) {
        showError(e, 'Could not leave the project');
        return;
      }
      state.projects.delete(project.id);
      announce(`You left \u201c${project.name}\u201d.`);
      navigate(ROOT);
    });
  }

  function inviteCard() {
    const email = h('input', { type: 'email', name: 'email', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off', required: true });
    const roleSel = h('select', { name: 'role' }, options(grantable(role).map((r) => [r, roleLabel(r)]), 'member'));
    const submit = h('button', { type: 'submit' }, 'Invite');
    const result = h('div', { id: 'invite-result' });
    const form = h('form', { id: 'invite-form', novalidate: '' },
      h('div', { class: 'field-row' },
        field({ id: 'invite-email', label: 'Email', control: email }),
        field({ id: 'invite-role', label: 'Role', control: roleSel, className: 'field-narrow' })),
      formErr(),
      submit);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      clearFormErrors(form);
      result.replaceChildren();
      await busy(submit, async () => {
        let inv;
        try {
          inv = await api('POST', `${base}/invites`, { body: { email: email.value.trim(), role: roleSel.value } });
        } catch (e) {
          showFormError(form, e, { conflictField: 'email' });
          return;
        }
        email.value = '';
        result.replaceChildren(inviteLink(inv));
        announce(`Invitation for ${inv.email} made. Copy the link now: it is shown only once.`);
        await loadInvites();
        const url = document.getElementById('invite-url');
        if (url) url.focus();
      });
    });
    return h('section', { class: 'card', 'aria-labelledby': 'invite-title' },
      h('h2', { id: 'invite-title' }, 'Invite someone'),
      h('p', { class: 'muted' }, 'They get a link to create their account (or sign in) and join. Links work once, for 7 days.'),
      emailBox, form, result);
  }

  function inviteLink(inv) {
    const url = h('input', { type: 'text', id: 'invite-url', readOnly: true, value: inv.url || '', spellcheck: 'false', 'aria-describedby': 'invite-url-hint' });
    url.addEventListener('focus', () => url.select());
    return h('div', { class: 'once' },
      h('label', { for: 'invite-url' }, `Invitation link for ${inv.email} (${roleLabel(inv.role).toLowerCase()})`),
      h('div', { class: 'copy-row' }, url,
        h('button', { type: 'button', class: 'button-secondary', id: 'copy-invite', onclick: () => copyText(url.value, 'Invitation link') }, 'Copy')),
      h('p', { class: 'hint', id: 'invite-url-hint' }, emailConfigured === false
        ? 'Shown only once, and not emailed (email is not configured): send it to them now.'
        : `Shown only once: send it to them now.${emailConfigured ? ' They also get it by email.' : ' If this server sends email, they also get it by email.'}`));
  }

  async function loadInvites() {
    let invites;
    try {
      invites = (await api('GET', `${base}/invites`)).data || [];
    } catch (e) {
      if (!alive()) return;
      invitesBox.replaceChildren(h('p', { class: 'muted' }, 'Invitations could not be loaded.'));
      showError(e, 'Could not load the invitations');
      return;
    }
    if (!alive()) return;
    if (!invites.length) {
      invitesBox.replaceChildren(h('p', { class: 'muted' }, 'No pending invitations.'));
      return;
    }
    invitesBox.replaceChildren(h('ul', { class: 'records', id: 'invite-list' }, invites.map((inv) => {
      const revoke = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'aria-label': `Revoke the invitation for ${inv.email}` }, 'Revoke');
      revoke.addEventListener('click', async () => {
        const ok = await confirmDialog({ title: `Revoke the invitation for ${inv.email}?`, text: 'Its link stops working. You can invite them again later.', ok: 'Revoke' });
        if (!ok) return;
        await busy(revoke, async () => {
          try {
            await api('DELETE', `${base}/invites/${encodeURIComponent(inv.id)}`);
          } catch (e) {
            showError(e, 'Could not revoke the invitation');
            return;
          }
          announce(`Revoked the invitation for ${inv.email}.`);
          await loadInvites();
        });
      });
      return h('li', { class: 'record invite-item', 'data-invite': inv.email },
        h('div', { class: 'record-main' },
          h('p', { class: 'record-title' }, inv.email),
          h('p', { class: 'meta' }, badge('role', inv.role, roleLabel(inv.role)), inv.expires_at ? h('span', null, 'Expires ', timeEl(inv.expires_at)) : null)),
        revoke);
    })));
  }
}
