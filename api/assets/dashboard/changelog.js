// Shipmate dashboard: a project's changelog: entries (paged), drafts and publishing, the feedback
// requests each entry answers (publishing ships them), and the editor, whose Markdown preview the
// server renders (POST /v1/markdown/preview) exactly as the public changelog page will.

import { $, badge, field, fmtNum, formErr, h, options, plural, shortId, timeEl } from './dom.js';
import { api, q } from './api.js';
import { announce, busy, clearFormErrors, confirmDialog, handleAuthLoss, pageHead, pager, setMain, setTitle, showError, showFormError } from './ui.js';
import { entryBadges, feedbackPicker, projectEntries } from './feedback-picker.js';

const CHANGELOG_TYPES = { feature: 'Feature', improvement: 'Improvement', fix: 'Fix', breaking: 'Breaking change' };
const PREVIEW_DELAY_MS = 250;
const PER_PAGE = 50;

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
  const pagerBox = h('div');
  const editorBox = h('div');
  const newBtn = h('button', { type: 'button', id: 'new-entry' }, 'New entry');
  newBtn.addEventListener('click', () => openEditor(null));
  const subscribers = h('p', { class: 'subscribers hidden', id: 'subscriber-count' });
  setMain(
    pageHead('Changelog', 'Drafts stay private until you publish them.', project,
      h('a', { class: 'button button-secondary', href: `/c/${project.slug}`, target: '_blank', rel: 'noopener' }, 'Open public changelog'),
      newBtn),
    subscribers, editorBox, listBox, pagerBox);

  let res = { data: [], total: 0 };
  let page = 1;
  // The project's feedback by id, for the requests entries answer; read again after publishing,
  // which moves them to shipped or done. `requests` is the reading under way, `byId` its answer.
  let requests = null;
  let byId = new Map();
  const base = `/v1/changelog/dashboard/${encodeURIComponent(project.id)}`;

  async function loadRequests() {
    if (!requests) requests = projectEntries(project).then((all) => new Map(all.map((e) => [e.id, e])));
    try {
      byId = await requests;
      return byId;
    } catch (e) {
      requests = null;
      throw e;
    }
  }

  async function load() {
    try {
      const next = await api('GET', `${base}?${q({ page, per_page: PER_PAGE })}`);
      if (!alive()) return;
      // A page emptied by deletions: step back to the last page that has entries.
      if (!next.data.length && page > 1 && next.total > 0) {
        page = Math.ceil(next.total / next.per_page);
        await load();
        return;
      }
      res = next;
      if (res.data.some((e) => (e.feedback_ids || []).length)) await loadRequests();
      if (!alive()) return;
      draw();
    } catch (e) {
      if (alive()) showError(e, 'Could not load the changelog');
    }
  }

  /** After a change: the entries and the requests they ship, read again. */
  function reload() {
    requests = null;
    return load();
  }

  function draw() {
    const entries = res.data;
    pagerBox.replaceChildren(pager(res, ['entry', 'entries'], async (p) => { page = p; await load(); $('h1').focus(); }));
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
        await api('PATCH', `${base}/${encodeURIComponent(e.id)}`, { body: { published: !e.published } });
      } catch (err) {
        showError(err, 'Could not change the entry');
        return;
      }
      await reload();
      announce(`\u201c${e.title}\u201d ${e.published ? 'moved back to drafts' : 'published'}.`);
      const again = $(`[data-entry="${CSS.escape(e.id)}"] [data-action="toggle-publish"]`);
      if (again) again.focus();
    }));
    del.addEventListener('click', async () => {
      const ok = await confirmDialog({ title: 'Delete this entry?', text: `\u201c${e.title}\u201d will be deleted${e.published ? ' and disappear from your public changelog' : ''}. This cannot be undone.`, ok: 'Delete' });
      if (!ok) return;
      await busy(del, async () => {
        try {
          await api('DELETE', `${base}/${encodeURIComponent(e.id)}`);
        } catch (err) {
          showError(err, 'Could not delete the entry');
          return;
        }
        await load();
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
        h('p', { class: 'record-text muted' }, excerpt(e.content)),
        linked(e)),
      h('div', { class: 'record-side' }, edit, toggle, del));
  }

  /** The requests an entry answers, with where each stands. */
  function linked(e) {
    const ids = e.feedback_ids || [];
    if (!ids.length) return null;
    return h('div', { class: 'linked-box' },
      h('span', { class: 'muted small' }, e.published ? 'Ships these requests:' : 'Ships these requests when published:'),
      h('ul', { class: 'linked', 'data-linked-list': '' }, ids.map((id) => {
        const f = byId.get(id);
        // Merged entries leave every listing, so the project's list no longer holds them.
        return f
          ? h('li', { 'data-linked': id }, h('span', { class: 'linked-title' }, f.title), entryBadges(f))
          : h('li', { 'data-linked': id, class: 'muted' }, `An entry merged into another or deleted (${shortId(id)})`);
      })));
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
    const links = linkField(entry);
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
      links.el,
      editing ? null : h('p', null, h('label', { class: 'check', for: 'cl-published' }, publish, 'Publish now (otherwise it is saved as a draft)')),
      formErr(),
      h('div', { class: 'button-row' }, submit, cancel));
    cancel.addEventListener('click', () => { editorBox.replaceChildren(); newBtn.focus(); });
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      clearFormErrors(form);
      await busy(submit, async () => {
        const body = { title: title.value, type: type.value, content: content.value };
        // Without the project's entries the links were never shown, so they are left as they are.
        const ids = links.selected();
        if (ids) body.feedback_ids = ids;
        let saved;
        try {
          if (editing) {
            saved = await api('PATCH', `${base}/${encodeURIComponent(entry.id)}`, { body });
          } else {
            saved = await api('POST', base, { body: { ...body, published: publish.checked } });
          }
        } catch (e) {
          showFormError(form, e);
          return;
        }
        if (!alive()) return;
        editorBox.replaceChildren();
        if (!editing) page = 1; // the newest entry comes first
        await reload();
        announce(editing ? `Saved \u201c${saved.title}\u201d.` : `${saved.published ? 'Published' : 'Saved draft'} \u201c${saved.title}\u201d.`);
        const row = $(`[data-entry="${CSS.escape(saved.id)}"] [data-action="toggle-publish"]`);
        (row || newBtn).focus();
      });
    });
    editorBox.replaceChildren(form);
    livePreview(content, preview);
    title.focus();
  }

  /**
   * The editor's choice of the requests the entry answers: a searchable list of the project's
   * feedback. `selected()` is null until the list is there (then nothing is sent).
   */
  function linkField(entry) {
    const el = h('div', { class: 'field', id: 'cl-links' },
      h('p', { class: 'loading' }, 'Loading feedback\u2026'),
      h('p', { class: 'field-err', 'data-err-for': 'feedback_ids', 'data-label': 'Linked requests' }));
    let picker = null;
    loadRequests().then((entries) => {
      picker = feedbackPicker({
        entries: [...entries.values()], multiple: true, selected: entry ? entry.feedback_ids || [] : [],
        label: 'Requests this answers (publishing moves feature requests to shipped, bugs and feedback to done)',
      });
      el.firstChild.replaceWith(picker.el);
    }, (e) => {
      if (handleAuthLoss(e)) return;
      el.firstChild.replaceWith(h('p', { class: 'muted' }, `The project\u2019s feedback could not be loaded (${e.message}); the linked requests stay as they are.`));
    });
    return { el, selected: () => (picker ? picker.selected() : null) };
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
