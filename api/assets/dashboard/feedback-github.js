// Shipmate dashboard: GitHub sync. An entry's linked issues (shown as owner/repo#n, edited one URL
// per line), and the project's GitHub connection (payload URL and secret for the repository's
// webhook settings) on the Webhooks page.

import { disclosure, field, formErr, h } from './dom.js';
import { api } from './api.js';
import { announce, busy, clearFormErrors, confirmDialog, copyText, showError, showFormError } from './ui.js';

const ISSUE = /^https:\/\/github\.com\/([^/]+)\/([^/]+)\/issues\/(\d+)$/;

/** `owner/repo#n` for a link in the API's spelling. */
const short = (url) => {
  const m = ISSUE.exec(url);
  return m ? `${m[1]}/${m[2]}#${m[3]}` : url;
};

/**
 * The entry's issue links: `list` (the links, in the entry's meta line), `toggle` and `panel` (a
 * form that replaces them). A closed or reopened issue moves the entry once GitHub is connected.
 */
export function issueLinks(e) {
  const list = h('span', { class: 'issue-links', 'data-links': '' });
  const draw = () => list.replaceChildren(...(e.links || []).map((u) => h('a', { href: u, class: 'mono', rel: 'noopener noreferrer', target: '_blank' }, short(u))));
  draw();
  const id = `fb-links-${e.id}`;
  const text = h('textarea', { rows: '3', spellcheck: 'false', placeholder: 'https://github.com/acme/app/issues/42' });
  const save = h('button', { type: 'submit', class: 'button-small' }, 'Save links');
  const panel = h('form', { class: 'links-panel', id: `${id}-form`, novalidate: '' },
    field({ id, label: 'GitHub issues, one URL per line', control: text, name: 'links', hint: 'Closing an issue as completed ships the entry; as not planned cancels it; reopening puts it in progress.' }),
    formErr(),
    h('div', { class: 'button-row' }, save));
  const toggle = disclosure('GitHub', panel, () => { text.value = (e.links || []).join('\n'); text.focus(); }, { 'data-action': 'links' });
  panel.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(panel);
    const links = text.value.split('\n').map((s) => s.trim()).filter(Boolean);
    await busy(save, async () => {
      try {
        Object.assign(e, await api('PATCH', `/v1/feedback/${encodeURIComponent(e.id)}`, { body: { links } }));
      } catch (err) {
        showFormError(panel, err);
        return;
      }
      draw();
      toggle.click(); // closes the panel
      announce(e.links.length ? `\u201c${e.title}\u201d is linked to ${e.links.map(short).join(', ')}.` : `\u201c${e.title}\u201d is linked to no issue.`);
    });
  });
  return { list, toggle, panel };
}

/** The Webhooks page's GitHub card: connect (or make a new secret), and disconnect. */
export function githubCard(project) {
  const path = `/v1/projects/${encodeURIComponent(project.id)}/integrations/github`;
  const body = h('div', { 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading\u2026'));
  const card = h('section', { class: 'card', id: 'github-card', 'aria-labelledby': 'github-title' },
    h('h2', { id: 'github-title' }, 'GitHub'),
    h('p', { class: 'muted' }, 'Link feedback entries to GitHub issues; when an issue is closed or reopened, its entries move and their voters hear about it.'),
    body);

  async function load() {
    let state;
    try {
      state = await api('GET', path);
    } catch (e) {
      body.replaceChildren(h('p', { class: 'form-err' }, `GitHub's settings could not be loaded: ${e.message}`));
      return;
    }
    draw(state, null);
  }

  function draw(state, secret) {
    body.removeAttribute('aria-busy');
    const connect = h('button', { type: 'button', id: 'github-connect', class: state.connected ? 'button-secondary' : '' }, state.connected ? 'New secret' : 'Connect GitHub');
    connect.addEventListener('click', () => busy(connect, async () => {
      try {
        const hook = await api('POST', path);
        draw({ ...state, connected: true, connected_at: new Date().toISOString() }, hook.secret);
        announce('GitHub is connected: paste the payload URL and secret into the repository\u2019s webhook settings.');
      } catch (e) { showError(e, 'Could not connect GitHub'); }
    }));
    const disconnect = state.connected ? h('button', { type: 'button', id: 'github-disconnect', class: 'button-danger-quiet' }, 'Disconnect') : null;
    disconnect?.addEventListener('click', async () => {
      const ok = await confirmDialog({ title: 'Disconnect GitHub?', text: 'GitHub\u2019s deliveries will be refused; entries keep their links.', ok: 'Disconnect' });
      if (!ok) return;
      await busy(disconnect, async () => {
        try {
          await api('DELETE', path);
          draw({ ...state, connected: false, connected_at: null }, null);
          announce('GitHub is disconnected.');
        } catch (e) { showError(e, 'Could not disconnect GitHub'); }
      });
    });
    const copy = (value, label) => {
      const b = h('button', { type: 'button', class: 'button-secondary button-small' }, 'Copy');
      b.addEventListener('click', () => copyText(value, label));
      return b;
    };
    body.replaceChildren(
      h('dl', { class: 'facts', id: 'github-details' },
        h('dt', null, 'Status'), h('dd', { id: 'github-status' }, state.connected ? 'Connected' : 'Not connected'),
        h('dt', null, 'Payload URL'), h('dd', null, h('code', { id: 'github-url' }, state.url), ' ', copy(state.url, 'Payload URL')),
        secret ? h('dt', null, 'Secret') : null,
        secret ? h('dd', null, h('code', { id: 'github-secret' }, secret), ' ', copy(secret, 'Secret'),
          h('p', { class: 'hint' }, 'Shown once. In the repository: Settings \u2192 Webhooks \u2192 Add webhook, content type application/json, "Let me select individual events" \u2192 Issues.')) : null),
      h('div', { class: 'button-row' }, connect, disconnect));
  }

  load();
  return card;
}
