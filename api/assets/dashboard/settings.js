// Shipmate dashboard: a project's settings: its keys (the secret one masked until revealed, each
// rotatable by owners and admins), the snippets that install Shipmate, its public pages, the
// feedback board's moderation, and deleting it.

import { $, h } from './dom.js';
import { api, q } from './api.js';
import { ROOT, state } from './state.js';
import { announce, busy, confirmDialog, copyText, pageHead, setMain, setTitle, showError } from './ui.js';
import { alertsCard } from './analytics-alerts.js';
import { loadProject, navigate } from './router.js';
import { BASE, loopbackHint, scriptTag as analyticsTag, snippetBlock } from './analytics-install.js';

/** Loads the widgets script anew for the preview: it reads its key from its own tag, and the
 *  project (so the key) may have changed since the last settings view. */
function loadWidgetPreview(publishable) {
  document.querySelectorAll('script[data-shipmate-preview]').forEach((s) => s.remove());
  // A script already loaded (an earlier visit here) would keep its key and never mount these.
  delete window.shipmate;
  document.body.append(h('script', { src: '/sdk/widgets.js', 'data-project': publishable, 'data-api': BASE, 'data-shipmate-preview': true }));
}

export async function screenSettings(ctx) {
  const { alive } = ctx;
  let project = ctx.project;
  try {
    project = await loadProject(project.id); // fresh: the key may have been rotated elsewhere
  } catch (e) {
    if (!alive()) return;
    showError(e, 'Could not refresh the project');
  }
  if (!alive()) return;
  setTitle('Settings', project.name);

  const key = project.api_key; // the secret key: owners and admins only
  const publishable = project.publishable_key;
  const scriptTag = analyticsTag(publishable);
  // Filled once the count is known: why the wall below may be empty.
  const testimonialsNote = h('p', { class: 'hint', id: 'widget-preview-testimonials-note' });
  api('GET', `/v1/testimonials/all?${q({ project_id: project.id })}`).then((r) => {
    if (alive() && !(r.stats && r.stats.approved)) {
      testimonialsNote.textContent = 'No approved testimonials yet: on your site this wall stays empty until you approve one (Testimonials).';
    }
  }, () => {});
  const widgetsTag = `<script defer data-project="${publishable}" data-api="${BASE}" src="${BASE}/sdk/widgets.js"></script>`;
  const widgets = [
    ['feedback', 'Feedback button', 'a form with the "already asked?" hint; identified visitors vote'],
    ['changelog', 'Changelog', 'recent releases with a badge counting what the visitor has not seen'],
    ['testimonials', 'Testimonials', 'approved testimonials, with an AggregateRating for search engines'],
  ].map(([kind, label, what]) => [kind, label, what, `${widgetsTag}\n<div data-shipmate="${kind}"></div>`]);
  const sdk = `import { Shipmate } from '@shipmate/sdk';\n\n// In browser code: the publishable key.\nconst sm = new Shipmate({ apiKey: '${publishable}', baseUrl: '${BASE}' });\n\n// On your server: the secret key, from the environment.\nconst server = new Shipmate({ apiKey: process.env.SHIPMATE_API_KEY, baseUrl: '${BASE}' });`;
  const pubInput = h('input', { type: 'text', id: 'publishable-key', readOnly: true, value: publishable, spellcheck: 'false', 'aria-describedby': 'publishable-key-hint' });
  pubInput.addEventListener('focus', () => pubInput.select());
  // The secret key stays masked until revealed: it must never end up in a screenshot or a page.
  const keyInput = h('input', { type: 'password', id: 'api-key', readOnly: true, value: key, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'api-key-hint' });
  keyInput.addEventListener('focus', () => keyInput.select());
  const revealBtn = h('button', { type: 'button', class: 'button-secondary', id: 'reveal-key', 'aria-pressed': 'false' }, 'Reveal');
  revealBtn.addEventListener('click', () => {
    const hidden = keyInput.type === 'password';
    keyInput.type = hidden ? 'text' : 'password';
    revealBtn.textContent = hidden ? 'Hide' : 'Reveal';
    revealBtn.setAttribute('aria-pressed', String(hidden));
  });
  const idInput = h('input', { type: 'text', id: 'project-id', readOnly: true, value: project.id, spellcheck: 'false' });

  const rotateButton = (id, which, path, focusId) => {
    const btn = h('button', { type: 'button', class: 'button-secondary', id }, 'Rotate key');
    btn.addEventListener('click', async () => {
      const ok = await confirmDialog({
        title: `Rotate the ${which}?`,
        text: 'A new key is issued and the current one stops working immediately. Sites, apps and scripts using it must be updated.',
        ok: 'Rotate key',
      });
      if (!ok) return;
      await busy(btn, async () => {
        try {
          const p = await api('POST', `/v1/projects/${encodeURIComponent(project.id)}/${path}`);
          state.projects.set(p.id, p);
          if (!alive()) return;
          announce(`New ${which} issued. The old key no longer works.`);
          await screenSettings({ ...ctx, project: p });
          const k = $(`#${focusId}`);
          if (k) k.focus();
        } catch (e) {
          showError(e, 'Could not rotate the key');
        }
      });
    });
    return btn;
  };
  const rotateBtn = rotateButton('rotate-key', 'secret API key', 'api-key/rotate', 'api-key');
  const rotatePubBtn = rotateButton('rotate-publishable', 'publishable key', 'publishable-key/rotate', 'publishable-key');
  const canRotate = project.role === 'owner' || project.role === 'admin';

  const deleteBtn = h('button', { type: 'button', class: 'button-danger', id: 'delete-project' }, 'Delete project');
  deleteBtn.addEventListener('click', async () => {
    const ok = await confirmDialog({
      title: `Delete \u201c${project.name}\u201d?`,
      text: 'Its feedback, testimonials, changelog, knowledge base and analytics are deleted for good, and its API key stops working. This cannot be undone.',
      ok: 'Delete project',
    });
    if (!ok) return;
    await busy(deleteBtn, async () => {
      try {
        await api('DELETE', `/v1/projects/${encodeURIComponent(project.id)}`);
      } catch (e) {
        showError(e, 'Could not delete the project');
        return;
      }
      state.projects.delete(project.id);
      announce(`Project \u201c${project.name}\u201d deleted.`);
      navigate(ROOT);
    });
  });

  const moderation = moderationSwitch(project, canRotate);

  const pages = [
    ['Feedback board', `/f/${project.slug}`],
    ['Testimonial form', `/t/${project.slug}`],
    ['Public changelog', `/c/${project.slug}`],
  ];

  const alerts = alertsCard(project);
  alerts.load();
  setMain(
    pageHead('Settings', null, project),
    h('section', { class: 'card', 'aria-labelledby': 'pub-key-title' },
      h('h2', { id: 'pub-key-title' }, 'Publishable key'),
      h('p', { class: 'muted', id: 'publishable-key-hint' }, 'For browser code and every snippet below: it sends feedback, testimonials and analytics events and reads approved testimonials and published changelog entries, nothing more. Anyone who has it can submit data to this project, within the per-visitor rate limits.'),
      h('div', { class: 'field' },
        h('label', { for: 'publishable-key' }, 'Publishable key'),
        h('div', { class: 'copy-row' }, pubInput,
          h('button', { type: 'button', class: 'button-secondary', id: 'copy-publishable', onclick: () => copyText($('#publishable-key').value, 'Publishable key') }, 'Copy'))),
      canRotate ? h('div', { class: 'button-row' }, rotatePubBtn) : null),
    h('section', { class: 'card', 'aria-labelledby': 'key-title' },
      h('h2', { id: 'key-title' }, 'Secret API key'),
      h('p', { class: 'muted', id: 'api-key-hint' }, 'Server-side only: it can do everything, including deleting documents and reading the knowledge base. Keep it in your server\u2019s environment; never put it in a web page, an app or a snippet.'),
      key ? h('div', { class: 'field' },
        h('label', { for: 'api-key' }, 'Secret API key'),
        h('div', { class: 'copy-row' }, keyInput, revealBtn,
          h('button', { type: 'button', class: 'button-secondary', id: 'copy-key', onclick: () => copyText($('#api-key').value, 'Secret API key') }, 'Copy')))
        : h('p', { id: 'api-key-hidden' }, 'Only owners and admins see the API key.'),
      key ? h('div', { class: 'button-row' }, rotateBtn) : null),
    h('section', { class: 'card', 'aria-labelledby': 'script-title' },
      h('h2', { id: 'script-title' }, 'Analytics script'),
      h('p', { class: 'muted' }, 'Paste this into the <head> of every page to count page views (cookie-free, respects Do Not Track). Custom events: sm(\'signup\', { plan: \'pro\' }).'),
      loopbackHint(),
      snippetBlock('script-snippet', 'Script tag', scriptTag, 'Copy script tag')),
    h('section', { class: 'card', 'aria-labelledby': 'widgets-title' },
      h('h2', { id: 'widgets-title' }, 'Widgets'),
      h('p', { class: 'muted' }, 'Paste where the widget goes (the script tag once per page). Theme with CSS variables such as --shipmate-accent; let visitors vote with window.shipmate.identify(token) (see docs/widgets.md).'),
      ...widgets.map(([kind, label, what, code]) => h('div', { class: 'field' },
        h('h3', null, label),
        h('p', { class: 'hint' }, what),
        snippetBlock(`widget-${kind}-snippet`, `${label} widget`, code, `Copy ${label.toLowerCase()} snippet`))),
      h('h3', { id: 'widget-preview-title' }, 'Live preview'),
      h('p', { class: 'hint' }, 'The three widgets as your visitors see them, with this project\u2019s publishable key: what you send here is real.'),
      h('div', { class: 'widget-preview', id: 'widget-preview', 'aria-labelledby': 'widget-preview-title' },
        // Each under its name: the feedback and changelog widgets are buttons, and an empty
        // testimonials wall draws nothing, so unnamed they read as two widgets, not three.
        ...widgets.map(([kind, label]) => h('div', { class: 'widget-preview-item', 'data-preview': kind },
          h('p', { class: 'hint widget-preview-label' }, label),
          h('div', { 'data-shipmate': kind, 'data-limit': '3' }),
          kind === 'testimonials' ? testimonialsNote : null)))),
    h('section', { class: 'card', 'aria-labelledby': 'sdk-title' },
      h('h2', { id: 'sdk-title' }, 'JavaScript SDK'),
      h('p', { class: 'muted' }, 'For feedback forms, testimonials and search from your own code.'),
      snippetBlock('sdk-snippet', 'SDK snippet', sdk, 'Copy SDK snippet')),
    h('section', { class: 'card', 'aria-labelledby': 'pages-title' },
      h('h2', { id: 'pages-title' }, 'Public pages'),
      h('ul', { class: 'link-list', id: 'public-pages' }, pages.map(([label, path]) => h('li', null,
        h('span', null, label),
        h('a', { href: path, target: '_blank', rel: 'noopener' }, `${BASE}${path}`)))),
      h('div', { class: 'field' },
        h('label', { for: 'project-id' }, 'Project ID'),
        h('div', { class: 'copy-row' }, idInput,
          h('button', { type: 'button', class: 'button-secondary', onclick: () => copyText(project.id, 'Project ID') }, 'Copy')),
        h('p', { class: 'hint' }, 'The project_id of dashboard API calls and the CLI.'))),
    moderation,
    alerts.card,
    project.role && project.role !== 'owner' ? null : h('section', { class: 'card danger-zone', 'aria-labelledby': 'danger-title' },
      h('h2', { id: 'danger-title' }, 'Delete this project'),
      h('p', { class: 'muted' }, 'Removes the project and everything in it, for good.'),
      deleteBtn),
  );
  loadWidgetPreview(publishable);
}

/**
 * The board's moderation switch (owners and admins): while on, submissions from the public board
 * wait as `pending` in the feedback view's review queue until a member approves them.
 */
function moderationSwitch(project, canChange) {
  const box = h('input', { type: 'checkbox', id: 'feedback-moderation', checked: project.feedback_moderation, disabled: !canChange, 'aria-describedby': 'feedback-moderation-hint' });
  box.addEventListener('change', async () => {
    const on = box.checked;
    box.disabled = true;
    try {
      const p = await api('PATCH', `/v1/projects/${encodeURIComponent(project.id)}`, { body: { feedback_moderation: on } });
      state.projects.set(p.id, p);
      announce(on ? 'Board submissions now wait for review.' : 'Board submissions are now public at once.');
    } catch (e) {
      box.checked = !on;
      showError(e, 'Could not change moderation');
    } finally {
      box.disabled = false;
    }
  });
  return h('section', { class: 'card', 'aria-labelledby': 'moderation-title' },
    h('h2', { id: 'moderation-title' }, 'Feedback moderation'),
    h('p', null, h('label', { class: 'check', for: 'feedback-moderation' }, box, 'Hold submissions from the public board for review')),
    h('p', { class: 'hint muted', id: 'feedback-moderation-hint' },
      canChange
        ? 'New entries from the board then wait under \u201cPending review\u201d in Feedback until a member approves them. Entries sent with your API key are never held.'
        : 'Only owners and admins change this.'));
}
