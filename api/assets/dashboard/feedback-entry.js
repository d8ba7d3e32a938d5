// Shipmate dashboard: one entry of the members' feedback list: its status, whether it is on the
// public roadmap, its moderation, its comment thread, merging it into another entry, and deleting it.

import { badge, cls, disclosure, field, fmtNum, formErr, h, options, plural, statusLabel, timeEl } from './dom.js';
import { api, q } from './api.js';
import { announce, busy, clearFormErrors, confirmDialog, showError, showFormError } from './ui.js';
import { feedbackPicker, projectEntries } from './feedback-picker.js';
import { issueLinks } from './feedback-github.js';
import { entryTags } from './feedback-tags.js';
import { entryBoard } from './feedback-boards.js';
import { myRole } from './roles.js';
import { valueLine, votersPanel } from './feedback-value.js';

export const FEEDBACK_TYPES = { bug: 'Bug', feature: 'Feature request', feedback: 'Feedback' };
const STATUSES_FOR = {
  bug: ['new', 'in_progress', 'done', 'dismissed'],
  feedback: ['new', 'in_progress', 'done', 'dismissed'],
  feature: ['planned', 'in_progress', 'shipped', 'cancelled'],
};
export const MODERATION = { approved: 'Approved', pending: 'Pending review', spam: 'Spam' };
const MODERATION_ACTIONS = [['approved', 'Approve'], ['spam', 'Spam'], ['pending', 'Pending']];

const path = (e, tail = '') => `/v1/feedback/${encodeURIComponent(e.id)}${tail}`;

/**
 * The entry's card. `onGone(message)` runs once it left the list (deleted, merged), and
 * `onModerated(entry)` after its moderation changed: the list decides whether it still belongs.
 * `tags()` and `boards()` give the project's tags and boards, for the entry's pickers.
 */
export function entryItem(e, { project, onGone, onModerated, tags, boards }) {
  const statusBadge = badge('status', e.status, statusLabel(e.status));
  statusBadge.setAttribute('data-status-badge', '');
  const modBadge = h('span', { 'data-moderation-badge': '' });
  const roadmap = roadmapSwitch(e);
  const thread = commentThread(e);
  const merge = mergePanel(e, project, onGone);
  const links = issueLinks(e);
  const tagBox = entryTags(e, tags);
  const voters = votersPanel(e);

  const modButtons = MODERATION_ACTIONS.map(([value, label]) => {
    const b = h('button', { type: 'button', 'data-action': 'moderate', 'data-moderation': value, 'aria-label': `${label}: \u201c${e.title}\u201d` }, label);
    b.addEventListener('click', () => moderate(value, b));
    return b;
  });
  const showModeration = () => {
    modBadge.replaceChildren(e.moderation === 'approved' ? '' : badge('moderation', e.moderation, MODERATION[e.moderation] || e.moderation));
    for (const b of modButtons) b.setAttribute('aria-pressed', String(b.dataset.moderation === e.moderation));
  };
  showModeration();

  async function moderate(value, button) {
    if (value === e.moderation) return;
    await busy(button, async () => {
      try {
        Object.assign(e, await api('PATCH', path(e), { body: { moderation: value } }));
      } catch (err) {
        showError(err, 'Could not moderate the entry');
        return;
      }
      showModeration();
      thread.reset();
      announce(`\u201c${e.title}\u201d is now ${MODERATION[e.moderation].toLowerCase()}.`);
      onModerated(e);
    });
  }

  const del = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'data-action': 'delete', 'aria-label': `Delete \u201c${e.title}\u201d` }, 'Delete');
  del.addEventListener('click', async () => {
    const ok = await confirmDialog({ title: 'Delete this feedback?', text: `\u201c${e.title}\u201d and its votes will be deleted. This cannot be undone.`, ok: 'Delete' });
    if (!ok) return;
    await busy(del, async () => {
      try {
        await api('DELETE', path(e));
      } catch (err) {
        showError(err, 'Could not delete the feedback');
        return;
      }
      onGone(`Deleted \u201c${e.title}\u201d.`);
    });
  });

  return h('li', { class: 'card record', 'data-feedback': e.id },
    h('div', { class: 'record-main' },
      h('h2', { class: 'record-title' }, e.title),
      e.description && e.description.trim() ? h('p', { class: 'record-text' }, e.description) : null,
      h('p', { class: 'meta' },
        entryBoard(e, boards, myRole(project) !== 'viewer'),
        badge('type', e.type, FEEDBACK_TYPES[e.type] || e.type),
        statusBadge,
        modBadge,
        tagBox.list,
        h('span', { class: 'votes', 'aria-label': `${plural(e.upvotes, 'upvote', 'upvotes')}, ${plural(e.downvotes, 'downvote', 'downvotes')}, score ${e.score}` },
          h('span', { 'aria-hidden': 'true' }, h('b', { 'data-upvotes': '' }, fmtNum(e.upvotes)), ' up'),
          h('span', { 'aria-hidden': 'true' }, h('b', { 'data-downvotes': '' }, fmtNum(e.downvotes)), ' down'),
          h('span', { 'aria-hidden': 'true' }, 'score ', h('b', { 'data-score': '' }, fmtNum(e.score))))),
      h('p', { class: 'meta' },
        e.submitter_email ? h('span', null, 'From ', h('a', { href: `mailto:${e.submitter_email}`, 'data-email': '' }, e.submitter_email)) : h('span', null, 'No email given'),
        timeEl(e.created_at), links.list),
      valueLine(e),
      tagBox.panel, links.panel, voters.panel, thread.el, merge.el),
    h('div', { class: 'record-side' },
      statusField(e, statusBadge, roadmap.sync),
      roadmap.el,
      h('div', { class: 'segmented small', role: 'group', 'aria-label': 'Moderation' }, modButtons),
      h('div', { class: 'button-row' }, thread.toggle, merge.toggle, tagBox.toggle, links.toggle, voters.toggle, del)));
}

/**
 * "On roadmap": the public roadmap shows the feature requests the team accepted. Public
 * submissions start off it; a status change puts the entry on it (`sync` shows that).
 */
function roadmapSwitch(e) {
  const id = `fb-roadmap-${e.id}`;
  const box = h('input', { type: 'checkbox', id, name: 'on_roadmap', 'data-action': 'roadmap', checked: e.on_roadmap });
  const sync = () => { box.checked = Boolean(e.on_roadmap); };
  box.addEventListener('change', async () => {
    box.disabled = true;
    try {
      Object.assign(e, await api('PATCH', path(e), { body: { on_roadmap: box.checked } }));
      announce(`\u201c${e.title}\u201d is ${e.on_roadmap ? 'on' : 'off'} the roadmap.`);
    } catch (err) {
      showError(err, 'Could not change the roadmap');
    } finally {
      sync();
      box.disabled = false;
    }
  });
  // Only feature requests are on the roadmap: other types have no switch.
  const el = e.type === 'feature'
    ? h('label', { class: 'check', for: id }, box, 'On roadmap', h('span', { class: 'sr-only' }, `: \u201c${e.title}\u201d`))
    : null;
  return { el, sync };
}

function statusField(e, statusBadge, changed) {
  const statuses = [...(STATUSES_FOR[e.type] || [])];
  if (!statuses.includes(e.status)) statuses.unshift(e.status);
  const selId = `fb-status-${e.id}`;
  const sel = h('select', { id: selId, name: 'status', value: e.status }, options(statuses.map((s) => [s, statusLabel(s)]), e.status));
  sel.addEventListener('change', async () => {
    sel.disabled = true;
    try {
      Object.assign(e, await api('PATCH', path(e), { body: { status: sel.value } }));
      statusBadge.className = `badge status-${cls(e.status)}`;
      statusBadge.textContent = statusLabel(e.status);
      changed();
      announce(`\u201c${e.title}\u201d is now ${statusLabel(e.status).toLowerCase()}.`);
    } catch (err) {
      sel.value = e.status;
      showError(err, 'Could not change the status');
    } finally {
      sel.disabled = false;
    }
  });
  return h('div', { class: 'field' },
    h('label', { for: selId }, 'Status', h('span', { class: 'sr-only' }, ` of \u201c${e.title}\u201d`)),
    sel);
}


/** The entry's comments, oldest first, with a reply form; a member's comment is official. */
function commentThread(e) {
  const el = h('section', { class: 'thread', id: `thread-${e.id}`, 'aria-label': `Comments on \u201c${e.title}\u201d` });
  let loaded = false;

  async function open() {
    if (loaded) return;
    loaded = true;
    // Hidden entries take no comments: the API answers 404 for them.
    if (e.moderation !== 'approved') {
      el.replaceChildren(h('p', { class: 'muted small' }, 'Comments open once the entry is approved.'));
      return;
    }
    el.replaceChildren(h('p', { class: 'loading' }, 'Loading comments\u2026'));
    let res;
    try {
      res = await api('GET', path(e, '/comments'));
    } catch (err) {
      loaded = false;
      el.replaceChildren();
      showError(err, 'Could not load the comments');
      return;
    }
    draw(res.data || []);
  }

  function draw(comments) {
    const list = h('ol', { class: 'comments' });
    const empty = h('p', { class: 'muted small', 'data-no-comments': '' }, 'No comments yet.');
    const add = (c) => { list.append(commentItem(c, () => { if (!list.children.length) list.replaceWith(empty); })); };
    comments.forEach(add);
    const body = h('textarea', { name: 'body', rows: '3', maxlength: '5000' });
    const submit = h('button', { type: 'submit', class: 'button-small' }, 'Post reply');
    const form = h('form', { class: 'reply', novalidate: '' },
      field({ id: `reply-${e.id}`, label: 'Reply', control: body, hint: 'Replies from the project\u2019s members are marked official.' }),
      formErr(), submit);
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      clearFormErrors(form);
      await busy(submit, async () => {
        let c;
        try {
          c = await api('POST', path(e, '/comments'), { body: { body: body.value } });
        } catch (err) {
          showFormError(form, err);
          return;
        }
        if (empty.isConnected) empty.replaceWith(list);
        add(c);
        body.value = '';
        announce(c.official ? 'Official reply posted.' : 'Comment posted.');
      });
    });
    el.replaceChildren(h('h3', null, 'Comments'), comments.length ? list : empty, form);
  }

  /** After a moderation change the thread is read again the next time it opens (or now). */
  function reset() {
    loaded = false;
    if (!el.classList.contains('hidden')) open();
  }

  const toggle = disclosure('Comments', el, open, { 'data-comments-toggle': '' });
  return { el, toggle, reset };
}

function commentItem(c, onRemoved) {
  const del = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'data-action': 'delete-comment', 'aria-label': `Delete the comment by ${c.author.name}` }, 'Delete');
  const li = h('li', { class: `comment${c.official ? ' official' : ''}`, 'data-comment': c.id },
    h('p', { class: 'meta' },
      h('strong', { class: 'comment-author' }, c.author.name),
      c.official ? h('span', { class: 'badge official', 'data-official': '' }, 'Official') : null,
      timeEl(c.created_at), del),
    h('p', { class: 'comment-body' }, c.body));
  del.addEventListener('click', async () => {
    const ok = await confirmDialog({ title: 'Delete this comment?', text: `The comment by ${c.author.name} will be deleted. This cannot be undone.`, ok: 'Delete' });
    if (!ok) return;
    await busy(del, async () => {
      try {
        await api('DELETE', `/v1/feedback/comments/${encodeURIComponent(c.id)}`);
      } catch (err) {
        showError(err, 'Could not delete the comment');
        return;
      }
      li.remove();
      onRemoved();
      announce('Comment deleted.');
    });
  });
  return li;
}

/**
 * Entries like this one, from the board's similar-entries search. A help, not a need: when the
 * search fails (or this server has none) the merge form lists every entry without suggestions.
 */
async function similarTo(project, e) {
  try {
    const res = await api('GET', `/v1/feedback/by-project/${encodeURIComponent(project.slug)}/similar?${q({ q: e.title })}`);
    return (res && Array.isArray(res.data)) ? res.data : [];
  } catch (err) {
    return [];
  }
}

/** Merging this entry into another of the project: similar entries are offered first. */
function mergePanel(e, project, onGone) {
  const el = h('section', { class: 'merge-panel', id: `merge-${e.id}`, 'aria-label': `Merge \u201c${e.title}\u201d` });

  async function open() {
    el.replaceChildren(h('p', { class: 'loading' }, 'Loading entries\u2026'));
    let entries;
    let similar;
    try {
      [entries, similar] = await Promise.all([projectEntries(project), similarTo(project, e)]);
    } catch (err) {
      el.replaceChildren();
      showError(err, 'Could not load the entries to merge into');
      return;
    }
    const submit = h('button', { type: 'submit', class: 'button-small', disabled: true }, 'Merge');
    const cancel = h('button', { type: 'button', class: 'button-secondary button-small' }, 'Cancel');
    const picker = feedbackPicker({
      entries, exclude: e.id, suggestions: similar,
      label: `Merge \u201c${e.title}\u201d into`,
      onChange: (ids) => { submit.disabled = !ids.length; },
    });
    const form = h('form', { class: 'merge-form', novalidate: '' },
      picker.el,
      h('p', { class: 'muted small' }, 'Its votes move to the chosen entry (one per person) and it leaves every list.'),
      formErr(),
      h('div', { class: 'button-row' }, submit, cancel));
    cancel.addEventListener('click', () => toggle.click());
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const [into] = picker.selected();
      const target = entries.find((x) => x.id === into);
      if (!target) return;
      const ok = await confirmDialog({ title: 'Merge these entries?', text: `\u201c${e.title}\u201d will be merged into \u201c${target.title}\u201d. This cannot be undone.`, ok: 'Merge', danger: false });
      if (!ok) return;
      await busy(submit, async () => {
        try {
          await api('POST', path(e, '/merge'), { body: { into } });
        } catch (err) {
          showFormError(form, err);
          return;
        }
        onGone(`Merged \u201c${e.title}\u201d into \u201c${target.title}\u201d.`);
      });
    });
    el.replaceChildren(form);
  }

  const toggle = disclosure('Merge\u2026', el, open, { 'data-action': 'merge' });
  return { el, toggle };
}
