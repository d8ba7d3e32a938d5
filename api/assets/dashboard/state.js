// Shipmate dashboard: what every view shares about the session and the screen on display.

/** The dashboard's own address; every client-side route lives under it. */
export const ROOT = '/dashboard';

export const state = {
  me: null,
  token: 0, // bumped on every route change; async work checks it before touching the page
  rendered: false,
  projects: new Map(), // id -> project (with api_key for owners and admins)
  devProbe: null,
  flash: '', // a message for the sign-in page (auth.js), set when the session ends
  timers: new Set(),
  onResize: null,
};
