// Shipmate dashboard: email verification. A signed-in password account whose address is not
// verified sees a notice above every screen (until then no identity provider is linked to it), with
// a button that sends the link again; /verify-email?token=... confirms the address.

import { $, h } from './dom.js';
import { api, ApiError } from './api.js';
import { ROOT, state } from './state.js';
import { announce, busy, setMain, setTitle } from './ui.js';
import { renderAccount } from './router.js';
import { card, hideToken } from './auth.js';

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

/** /verify-email?token=...: confirms the address the link was sent to. */
export async function verifyPage({ params }) {
  const token = params.get('token') || '';
  hideToken();
  setTitle('Verify your email');
  const onward = h('p', { class: 'signin-foot' }, h('a', { href: state.me ? ROOT : '/login', 'data-nav': '' }, state.me ? 'Go to the dashboard' : 'Go to sign-in'));
  if (!token) {
    setMain(card('Verify your email', 'This link is incomplete. Open the whole link from the email.', onward));
    return;
  }
  try {
    const user = await api('POST', '/v1/auth/verify-email', { body: { token } });
    if (state.me && state.me.id === user.id) { state.me = user; renderAccount(); }
    setMain(card('Email verified', `${user.email} is verified. Thank you.`, onward));
  } catch (e) {
    const expired = e instanceof ApiError && [404, 410].includes(e.status);
    setMain(card('Verify your email', expired
      ? 'This link has expired or was used already (links last 24 hours and work once). Sign in to send a new one.'
      : 'The address could not be verified just now. Try the link again shortly.', onward));
  }
}
