// Shipmate dashboard: a project's changelog: entries, drafts and publishing, and the editor, whose
// Markdown preview the server renders (POST /v1/markdown/preview) exactly as the public changelog
// page will.

import { $, badge, field, fmtNum, formErr, h, options, plural, timeEl } from './dom.js';
import { api } from './api.js';
import { announce, busy, clearFormErrors, confirmDialog, handleAuthLoss, pageHead, setMain, setTitle, showError, showFormError } from './ui.js';

const CHANGELOG_TYPES = { feature: 'Feature', improvement: 'Improvement', fix: 'Fix', breaking: 'Breaking change' };
const PREVIEW_DELAY_MS = 250;

/**
 * Keeps `box` showing the server's rendering of `textarea`'s Markdown, asked for once typing pauses
 * (an answer to older text is dropped). The HTML is sanitised by the server with the public page's
 * rules; it is the only HTML string the dashboard inserts. Links open beside the editor, not over it.
 */
function livePreview(textarea, box) {
  let timer = 0;
  let asked = 0;
  const show = async () => {
    const markdown = textarea.value;
    const n = ++asked;
    if (!box.isConnected) return;
    if (!markdown.trim()) { box.replaceChildren(); return; } // the server wants some text
    let res;
    try {
      res = await api('POST', '/v1/markdown/preview', { body: { markdown } });
    } catch (e) {
      if (n !== asked || handleAuthLoss(e)) return;
      box.replaceChildren(h('p', { class: 'form-err' }, `No preview: ${e.message}`));
      return;
    }
    if (n !== asked) return;
    box.innerHTML = res.html;
    for (const a of box.querySelectorAll('a[href]')) a.target = '_blank';
  };
  textarea.addEventListener('input', () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(show, PREVIEW_DELAY_MS);
  });
  show();
}

export async function screenChangelog(ctx) {
  const { project, alive } = ctx;
  setTitle('Changelog', project.name);
  const listBox = h('div');
  const editorBox = h('div');
  const newBtn = h('button', { type: 'button', id: 'new-entry' }, 'New entry');
  newBtn.addEventListener('click', () => openEditor(null));
  const subscribers = h('p', { class: 'subscribers hidden', id: 'subscriber-count' });
  setMain(
    pageHead('Changelog', 'Drafts stay private until you publish them.', project,
      h('a', { class: 'button button-secondary', href: `/c/${project.slug}`, target: '_blank', rel: 'noopener' }, 'Open public changelog'),
      newBtn),
    subscribers, editorBox, listBox);

  let entries = [];

  async function load() {
    try {
      const res = await api('GET', `/v1/changelog/dashboard/${encodeURIComponent(project.id)}`);
      if (!alive()) return;
      entries = res.data || [];
      draw();
    } catch (e) {
      if (alive()) showError(e, 'Could not load the changelog');
    }
  }

  function draw() {
    if (!entries.length) {
      listBox.replaceChildren(h('div', { class: 'card empty' }, h('p', null, 'No entries yet. Write your first release note with \u201cNew entry\u201d.')));
      return;
    }
    listBox.replaceChildren(h('ul', { class: 'records', id: 'changelog-list' }, entries.map(item)));
  }

  function excerpt(md) {
    const text = String(md || '')
      .replace(/```[\s\S]*?```/g, ' ')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]*>/g, ' ')
      .replace(/(^|\s)[#>*+-]+(?=\s)/g, ' ')
      .replace(/[*_`]+/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    return text.length > 180 ? `${text.slice(0, 180)}\u2026` : text;
  }

  function item(e) {
    const edit = h('button', { type: 'button', class: 'button-secondary button-small', 'data-action': 'edit' }, 'Edit');
    const toggle = h('button', { type: 'button', class: 'button-small', 'data-action': 'toggle-publish' }, e.published ? 'Unpublish' : 'Publish');
    const del = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'data-action': 'delete' }, 'Delete');
    edit.setAttribute('aria-label', `Edit \u201c${e.title}\u201d`);
    toggle.setAttribute('aria-label', `${e.published ? 'Unpublish' : 'Publish'} \u201c${e.title}\u201d`);
    del.setAttribute('aria-label', `Delete \u201c${e.title}\u201d`);
    edit.addEventListener('click', () => openEditor(e));
    toggle.addEventListener('click', () => busy(toggle, async () => {
      try {
        const updated = await api('PATCH', `/v1/changelog/dashboard/${encodeURIComponent(project.id)}/${encodeURIComponent(e.id)}`, { body: { published: !e.published } });
        entries = entries.map((x) => (x.id === e.id ? updated : x));
      } catch (err) {
        showError(err, 'Could not change the entry');
        return;
      }
      draw();
      announce(`\u201c${e.title}\u201d ${e.published ? 'moved back to drafts' : 'published'}.`);
      const again = $(`[data-entry="${CSS.escape(e.id)}"] [data-action="toggle-publish"]`);
      if (again) again.focus();
    }));
    del.addEventListener('click', async () => {
      const ok = await confirmDialog({ title: 'Delete this entry?', text: `\u201c${e.title}\u201d will be deleted${e.published ? ' and disappear from your public changelog' : ''}. This cannot be undone.`, ok: 'Delete' });
      if (!ok) return;
      await busy(del, async () => {
        try {
          await api('DELETE', `/v1/changelog/dashboard/${encodeURIComponent(project.id)}/${encodeURIComponent(e.id)}`);
        } catch (err) {
          showError(err, 'Could not delete the entry');
          return;
        }
        entries = entries.filter((x) => x.id !== e.id);
        draw();
        announce(`Deleted \u201c${e.title}\u201d.`);
        $('h1').focus();
      });
    });
    return h('li', { class: 'card record', 'data-entry': e.id },
      h('div', { class: 'record-main' },
        h('h2', { class: 'record-title' }, e.title),
        h('p', { class: 'meta' },
          badge('kind', e.type, CHANGELOG_TYPES[e.type] || e.type),
          e.published ? badge('status', 'published', 'Published') : badge('status', 'draft', 'Draft'),
          e.published && e.published_at ? h('span', null, 'Published ', timeEl(e.published_at)) : h('span', null, 'Created ', timeEl(e.created_at))),
        h('p', { class: 'record-text muted' }, excerpt(e.content))),
      h('div', { class: 'record-side' }, edit, toggle, del));
  }

  function openEditor(entry) {
    const editing = Boolean(entry);
    const title = h('input', { type: 'text', name: 'title', maxlength: '200', value: entry ? entry.title : '' });
    const type = h('select', { name: 'type', value: entry ? entry.type : 'feature' }, options(Object.entries(CHANGELOG_TYPES), entry ? entry.type : 'feature'));
    const content = h('textarea', { name: 'content', rows: '12', spellcheck: 'true', value: entry ? entry.content : '' });
    const preview = h('div', { class: 'preview prose', id: 'cl-preview', role: 'region', 'aria-labelledby': 'cl-preview-title', 'aria-live': 'off' });
    const publish = h('input', { type: 'checkbox', name: 'published', id: 'cl-published' });
    const submit = h('button', { type: 'submit' }, editing ? 'Save changes' : 'Save entry');
    const cancel = h('button', { type: 'button', class: 'button-secondary' }, 'Cancel');
    const headingId = 'cl-editor-title';
    const form = h('form', { class: 'card', id: 'changelog-editor', novalidate: '', 'aria-labelledby': headingId },
      h('h2', { id: headingId, tabindex: '-1' }, editing ? `Edit \u201c${entry.title}\u201d` : 'New entry'),
      h('div', { class: 'field-row' },
        field({ id: 'cl-title', label: 'Title', control: title }),
        field({ id: 'cl-type', label: 'Type', control: type, className: 'field-narrow' })),
      h('div', { class: 'editor' },
        field({ id: 'cl-content', label: 'Content (Markdown)', control: content, hint: 'Headings (#), **bold**, *italics*, `code`, lists and [links](https://\u2026).' }),
        h('div', { class: 'field' },
          h('span', { class: 'field-label', id: 'cl-preview-title' }, 'Preview'),
          preview)),
      editing ? null : h('p', null, h('label', { class: 'check', for: 'cl-published' }, publish, 'Publish now (otherwise it is saved as a draft)')),
      formErr(),
      h('div', { class: 'button-row' }, submit, cancel));
    cancel.addEventListener('click', () => { editorBox.replaceChildren(); newBtn.focus(); });
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      clearFormErrors(form);
      await busy(submit, async () => {
        const body = { title: title.value, type: type.value, content: content.value };
        let saved;
        try {
          if (editing) {
            saved = await api('PATCH', `/v1/changelog/dashboard/${encodeURIComponent(project.id)}/${encodeURIComponent(entry.id)}`, { body });
          } else {
            saved = await api('POST', `/v1/changelog/dashboard/${encodeURIComponent(project.id)}`, { body: { ...body, published: publish.checked } });
          }
        } catch (e) {
          showFormError(form, e);
          return;
        }
        if (!alive()) return;
        entries = editing ? entries.map((x) => (x.id === saved.id ? saved : x)) : [saved, ...entries];
        editorBox.replaceChildren();
        draw();
        announce(editing ? `Saved \u201c${saved.title}\u201d.` : `${saved.published ? 'Published' : 'Saved draft'} \u201c${saved.title}\u201d.`);
        const row = $(`[data-entry="${CSS.escape(saved.id)}"] [data-action="toggle-publish"]`);
        (row || newBtn).focus();
      });
    });
    editorBox.replaceChildren(form);
    livePreview(content, preview);
    title.focus();
  }

  /** Who gets an email on publishing: confirmed subscribers (double opt-in), and those still to confirm. */
  async function loadSubscribers() {
    let n;
    try {
      n = await api('GET', `/v1/projects/${encodeURIComponent(project.id)}/changelog/subscribers`);
    } catch (e) {
      return; // viewers may not see it (403), and the entries matter more than the count
    }
    if (!alive() || !n) return;
    subscribers.replaceChildren(
      h('strong', { id: 'subscriber-confirmed' }, plural(n.confirmed || 0, 'subscriber', 'subscribers')),
      n.pending ? h('span', { class: 'muted', id: 'subscriber-pending' }, ` (plus ${fmtNum(n.pending)} awaiting confirmation)`) : '', // not null: replaceChildren prints it
      h('span', { class: 'muted' }, ` ${n.confirmed === 1 ? 'receives' : 'receive'} each entry by email when it is published.`));
    subscribers.classList.remove('hidden');
  }

  listBox.append(h('p', { class: 'loading' }, 'Loading\u2026'));
  await Promise.all([load(), loadSubscribers()]);
}
