// Shipmate dashboard: personal access tokens on the account page, for scripts and the CLI
// (`shipmate login --with-token`). A token is shown once, when it is made; the list shows names and
// dates only. Shapes: docs/accounts.md, "Personal access tokens".

import { field, formErr, h } from './dom.js';
import { api } from './api.js';
import { announce, busy, clearFormErrors, confirmDialog, copyText, showError, showFormError } from './ui.js';

const EXPIRY = [['30', '30 days'], ['90', '90 days'], ['180', '180 days'], ['365', '1 year']];

function day(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '\u2014' : h('time', { datetime: iso }, d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' }));
}

/** The card and its loader: `load()` fills the list (call it once the card is on the page). */
export function tokensCard({ alive }) {
  const list = h('div', { 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading tokens\u2026'));
  const shown = h('div', { id: 'token-made', 'aria-live': 'polite' });
  const name = h('input', { type: 'text', id: 'token-name', name: 'name', maxlength: '100', required: '', autocomplete: 'off', placeholder: 'CI deploys' });
  const expiry = h('select', { id: 'token-expiry', name: 'expires_in_days' }, EXPIRY.map(([v, label]) => h('option', { value: v, selected: v === '90' ? '' : null }, label)));
  const make = h('button', { type: 'submit' }, 'Make token');
  const form = h('form', { id: 'token-form', novalidate: '' },
    h('div', { class: 'grid-2' },
      field({ id: 'token-name', label: 'Name', control: name, hint: 'What the token is for, so you know which to revoke.' }),
      field({ id: 'token-expiry', label: 'Expires after', control: expiry })),
    formErr(), make);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    await busy(make, async () => {
      let made;
      try {
        made = await api('POST', '/v1/auth/tokens', { body: { name: name.value, expires_in_days: Number(expiry.value) } });
      } catch (e) {
        showFormError(form, e);
        return;
      }
      name.value = '';
      const copy = h('button', { type: 'button', class: 'button-secondary button-small', id: 'token-copy' }, 'Copy');
      copy.addEventListener('click', () => copyText(made.token, 'Token'));
      shown.replaceChildren(h('div', { class: 'notice' },
        h('p', null, h('strong', null, `${made.name}: `), 'copy the token now; it is not shown again.'),
        h('p', null, h('code', { id: 'token-value' }, made.token), ' ', copy),
        h('p', { class: 'muted' }, 'Use it as a bearer token, or with the CLI: ', h('code', null, 'shipmate login --with-token'), ' reads it from standard input.')));
      announce('Token made. Copy it now.');
      await load();
    });
  });

  async function load() {
    let tokens;
    try {
      tokens = (await api('GET', '/v1/auth/tokens')).data || [];
    } catch (e) {
      if (!alive()) return;
      list.replaceChildren(h('p', { class: 'muted' }, 'Tokens could not be loaded.'));
      showError(e, 'Could not load your tokens');
      return;
    }
    if (!alive()) return;
    list.removeAttribute('aria-busy');
    if (!tokens.length) { list.replaceChildren(h('p', { class: 'muted', id: 'token-none' }, 'No tokens yet.')); return; }
    list.replaceChildren(h('div', { class: 'table-wrap' }, h('table', { id: 'token-table' },
      h('thead', null, h('tr', null, ['Name', 'Made', 'Expires', 'Last used'].map((t) => h('th', { scope: 'col' }, t)),
        h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, tokens.map((t) => {
        const revoke = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'data-revoke-token': t.id, 'aria-label': `Revoke ${t.name}` }, 'Revoke');
        revoke.addEventListener('click', () => revokeToken(t, revoke));
        return h('tr', { 'data-token': t.id },
          h('td', null, t.name), h('td', null, day(t.created_at)), h('td', null, day(t.expires_at)), h('td', null, day(t.last_used_at)),
          h('td', { class: 'num' }, revoke));
      })))));
  }

  async function revokeToken(t, btn) {
    if (!(await confirmDialog({ title: `Revoke ${t.name}?`, text: 'Scripts and command lines using it are signed out at once.', ok: 'Revoke' }))) return;
    await busy(btn, async () => {
      try {
        await api('DELETE', `/v1/auth/tokens/${encodeURIComponent(t.id)}`);
      } catch (e) {
        showError(e, 'Could not revoke the token');
        return;
      }
      announce(`${t.name} revoked.`);
      await load();
    });
  }

  const card = h('section', { class: 'card', 'aria-labelledby': 'tokens-title' },
    h('h2', { id: 'tokens-title', tabindex: '-1' }, 'Personal access tokens'),
    h('p', { class: 'muted' }, 'Tokens act as you for scripts and the command line, until they expire or you revoke them. Signing out here does not end them.'),
    form, shown, list);
  return { card, load };
}
