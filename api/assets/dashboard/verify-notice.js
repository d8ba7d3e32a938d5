// Shipmate dashboard: email verification's notice. A signed-in password account whose address is
// not verified sees it above every screen (until then no identity provider is linked to it), with a
// button that sends the link again.

import { $, h } from './dom.js';
import { api, ApiError } from './api.js';
import { state } from './state.js';
import { announce, busy } from './ui.js';

/** Shows or hides the "verify your email" notice for the signed-in user. */
export function renderVerifyNotice() {
  const box = $('#verify-notice');
  if (!state.me || state.me.email_verified !== false) { box.classList.add('hidden'); box.replaceChildren(); return; }
  const resend = h('button', { type: 'button', class: 'button-secondary button-small', id: 'verify-resend' }, 'Send the link again');
  resend.addEventListener('click', () => busy(resend, async () => {
    try {
      await api('POST', '/v1/auth/verify-email/resend');
      announce(`Sent: check ${state.me.email} for the link.`);
    } catch (e) {
      const code = e instanceof ApiError ? e.code : '';
      if (code === 'email_not_configured') announce('This Shipmate sends no email: ask an instance admin.');
      else if (code === 'already_verified') { state.me.email_verified = true; renderVerifyNotice(); }
      else if (e instanceof ApiError && e.status === 429) announce('A link was sent moments ago: check your inbox, or try again in a minute.');
      else announce('The link could not be sent. Try again shortly.');
    }
  }));
  box.replaceChildren(
    h('p', { class: 'verify-text' }, h('strong', null, 'Verify your email. '),
      `Open the link we sent to ${state.me.email}. Until then, no sign-in provider can be linked to this account.`),
    resend);
  box.classList.remove('hidden');
}
