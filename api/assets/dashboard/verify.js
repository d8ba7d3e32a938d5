// Shipmate dashboard: /verify-email?token=..., which confirms the address a verification link was
// sent to (the notice that asks for it is verify-notice.js).

import { h } from './dom.js';
import { api, ApiError } from './api.js';
import { ROOT, state } from './state.js';
import { card, hideToken, setMain, setTitle } from './ui.js';
import { renderAccount } from './router.js';

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
