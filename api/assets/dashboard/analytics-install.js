// Shipmate dashboard: putting the analytics script on a site. The script tag (with
// data-allow-localhost when this service runs on a loopback address, since sm.js skips such hosts
// otherwise), and the card an empty project's analytics show: the tag, and a live check that polls
// the realtime read until the first event arrives.

import { h } from './dom.js';
import { api, q } from './api.js';
import { copyText, handleAuthLoss, later } from './ui.js';

/** The address the snippets point at: the dashboard's own, standing in for SHIPMATE_PUBLIC_URL. */
export const BASE = window.location.origin;

/** The hosts sm.js skips unless its tag has data-allow-localhost (the same test as sm.js). */
export const LOOPBACK = /^(localhost|127\.0\.0\.1|\[::1\])$/.test(window.location.hostname);

/** How often the first-event check polls the realtime read. */
const FIRST_EVENT_MS = 3000;

export function scriptTag(publishable) {
  const local = LOOPBACK ? ' data-allow-localhost' : '';
  return `<script defer data-project="${publishable}" data-api="${BASE}"${local} src="${BASE}/sdk/sm.js"></script>`;
}

/** Why the tag carries data-allow-localhost, for beside it (nothing when it does not). */
export function loopbackHint() {
  return LOOPBACK
    ? h('p', { class: 'hint muted', id: 'allow-localhost-hint' },
      `This Shipmate runs on ${window.location.hostname}, so the tag carries data-allow-localhost: the script then counts pages on localhost too, which it skips otherwise. Leave it out on a public site.`)
    : null;
}

export function snippetBlock(id, label, code, buttonText) {
  return h('div', null,
    h('pre', { class: 'code-block', id, tabindex: '0', 'aria-label': label }, h('code', null, code)),
    h('button', { type: 'button', class: 'button-secondary button-small', onclick: () => copyText(code, label) }, buttonText));
}

/** Two years up to today (UTC), the longest range a read takes: tells "never" from "not lately". */
function everRange() {
  const to = new Date();
  const from = new Date(Date.UTC(to.getUTCFullYear() - 2, to.getUTCMonth(), to.getUTCDate() + 1));
  const day = (d) => d.toISOString().slice(0, 10);
  return { from: day(from), to: day(to) };
}

/**
 * The install card of a project without events: the script tag, and "Waiting for your first page
 * view…", polled every few seconds (with `later`, so the timers end with the screen) until the
 * realtime read shows an event; it then says so and calls `onSeen()`.
 */
export function firstEventCard(project, alive, onSeen) {
  const status = h('p', { class: 'first-event', id: 'first-event-status', role: 'status' });
  const intro = h('p', { class: 'muted' }, 'No events yet. Paste this into the <head> of every page of your site to count page views (cookie-free; browsers with Do Not Track on are not counted, and their console says so).');
  const card = h('section', { class: 'card hidden', id: 'analytics-install', 'aria-labelledby': 'analytics-install-title' },
    h('h2', { id: 'analytics-install-title' }, 'Install the analytics script'),
    intro,
    loopbackHint(),
    snippetBlock('first-event-snippet', 'Script tag', scriptTag(project.publishable_key), 'Copy script tag'),
    status);
  let gen = 0; // bumped when the wait starts or ends, so at most one poll loop runs
  let waiting = false;
  let seen = false;

  async function poll(mine) {
    if (!alive() || mine !== gen) return;
    if (document.visibilityState === 'visible') {
      try {
        const r = await api('GET', `/v1/analytics/realtime?${q({ project_id: project.id })}`);
        if (!alive() || mine !== gen) return;
        const views = Number(r && r.page_views) || 0;
        if (views || Number(r && r.visitors)) {
          waiting = false;
          seen = true;
          gen += 1;
          status.replaceChildren(h('span', { class: 'pulse', 'aria-hidden': 'true' }), views ? 'First page view seen!' : 'First event seen!');
          intro.textContent = 'Your site is sending events. The same tag goes into every other page you want counted.';
          onSeen();
          return;
        }
      } catch (e) {
        if (!alive() || handleAuthLoss(e)) return; // any other failure: the next beat tries again
      }
    }
    later(() => poll(mine), FIRST_EVENT_MS);
  }

  return {
    card,
    get waiting() { return waiting; },
    get seen() { return seen; },
    /** After an unfiltered read found nothing: shows the card and waits, unless events were ever seen. */
    async check() {
      if (waiting || seen) return;
      let r;
      try {
        r = await api('GET', `/v1/analytics/events?${q({ project_id: project.id, ...everRange() })}`);
      } catch (e) {
        if (alive()) handleAuthLoss(e);
        return;
      }
      if (!alive() || waiting || seen || (r && Array.isArray(r.data) && r.data.length)) return;
      waiting = true;
      const mine = ++gen;
      status.replaceChildren(h('span', { class: 'spinner', 'aria-hidden': 'true' }), 'Waiting for your first page view\u2026');
      card.classList.remove('hidden');
      poll(mine);
    },
    /** The read found data: the wait ends (a "seen" card stays until the screen changes). */
    hide() {
      if (seen) return;
      waiting = false;
      gen += 1;
      card.classList.add('hidden');
    },
  };
}
