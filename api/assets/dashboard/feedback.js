// Shipmate dashboard: a project's feedback, filtered, sorted and paged, with the moderation queue
// (entries pending review, and spam). Each entry's own controls live in feedback-entry.js.

import { $, field, h, options, statusLabel } from './dom.js';
import { api, q } from './api.js';
import { announce, pageHead, pager, setMain, setTitle, showError } from './ui.js';
import { projectPath } from './router.js';
import { myRole } from './roles.js';
import { FEEDBACK_TYPES, MODERATION, entryItem } from './feedback-entry.js';
import { loadTags, tagManager } from './feedback-tags.js';
import { boardManager, loadBoards } from './feedback-boards.js';

const ALL_FEEDBACK_STATUSES = ['new', 'planned', 'in_progress', 'done', 'shipped', 'dismissed', 'cancelled'];
const PER_PAGE = 50;
// What the list shows: every entry, or one moderation state (the review queue, the spam).
const VIEWS = [['all', 'All entries'], ['pending', 'Pending review'], ['spam', 'Spam']];

// The filters stay as they were when the owner comes back to the list.
const filter = { type: '', status: '', sort: 'new', view: 'all', tag: '', board: '' };

export async function screenFeedback(ctx) {
  const { project, alive } = ctx;
  setTitle('Feedback', project.name);
  const f = filter;
  let page = 1;
  const count = h('p', { class: 'muted', id: 'feedback-count', 'aria-live': 'polite' });
  const listBox = h('div');
  const pagerBox = h('div');
  const typeSel = h('select', { name: 'type', value: f.type },
    options([['', 'All types'], ...Object.entries(FEEDBACK_TYPES)], f.type));
  const statusSel = h('select', { name: 'status', value: f.status },
    options([['', 'All statuses'], ...ALL_FEEDBACK_STATUSES.map((s) => [s, statusLabel(s)])], f.status));
  const sortSel = h('select', { name: 'sort', value: f.sort }, options([['new', 'Newest first'], ['top', 'Top voted'], ['mrr', 'Highest MRR'], ['must_have', 'Most must-haves']], f.sort));
  let [tags, boards] = await Promise.all([loadTags(project).catch(() => []), loadBoards(project).catch(() => [])]);
  if (!alive()) return;
  if (!tags.some((t) => t.id === f.tag)) f.tag = '';
  if (!boards.some((b) => b.slug === f.board)) f.board = '';
  const tagSel = h('select', { name: 'tag' });
  const drawTagOptions = () => tagSel.replaceChildren(...options([['', 'All tags'], ...tags.map((t) => [t.id, t.name])], f.tag));
  drawTagOptions();
  const boardSel = h('select', { name: 'board' });
  const drawBoardOptions = () => boardSel.replaceChildren(...options([['', 'All boards'], ...boards.map((b) => [b.slug, b.name])], f.board));
  drawBoardOptions();
  const filters = h('form', { class: 'card filters', role: 'search', 'aria-label': 'Filter feedback' },
    field({ id: 'fb-filter-board', label: 'Board', control: boardSel }),
    field({ id: 'fb-filter-type', label: 'Type', control: typeSel }),
    field({ id: 'fb-filter-status', label: 'Status', control: statusSel }),
    field({ id: 'fb-filter-tag', label: 'Tag', control: tagSel }),
    field({ id: 'fb-filter-sort', label: 'Sort', control: sortSel }));
  filters.addEventListener('submit', (ev) => ev.preventDefault());
  filters.addEventListener('change', () => {
    f.type = typeSel.value; f.status = statusSel.value; f.sort = sortSel.value; f.tag = tagSel.value; f.board = boardSel.value;
    page = 1;
    load();
  });
  const viewBtns = VIEWS.map(([value, label]) => h('button', { type: 'button', 'aria-pressed': String(value === f.view), 'data-view': value }, label));
  for (const b of viewBtns) {
    b.addEventListener('click', () => {
      f.view = b.dataset.view;
      for (const o of viewBtns) o.setAttribute('aria-pressed', String(o === b));
      page = 1;
      load();
    });
  }
  const moderationNote = project.feedback_moderation
    ? 'Moderation is on: submissions from the public board wait under \u201cPending review\u201d until approved.'
    : 'Moderation is off: submissions from the public board are public at once.';

  setMain(
    pageHead('Feedback', null, project, h('a', { class: 'button button-secondary', href: `/f/${project.slug}`, target: '_blank', rel: 'noopener' }, 'Open public board')),
    h('div', { class: 'view-bar' },
      h('div', { class: 'segmented', role: 'group', 'aria-label': 'Show' }, viewBtns),
      h('p', { class: 'muted small', id: 'moderation-state' }, moderationNote,
        ['owner', 'admin'].includes(myRole(project)) ? [' ', h('a', { href: projectPath(project, 'settings'), 'data-nav': '' }, 'Change in settings')] : null),
      h('p', { class: 'muted small', id: 'roadmap-note' },
        'Feature requests from the public join the ',
        h('a', { href: `/f/${project.slug}/roadmap`, target: '_blank', rel: 'noopener' }, 'public roadmap'),
        ' once you switch on \u201cOn roadmap\u201d or change their status; yours are on it from the start.')),
    filters,
    ['owner', 'admin'].includes(myRole(project)) ? boardManager(project, boards, (now) => {
      boards = now;
      if (!boards.some((b) => b.slug === f.board)) f.board = '';
      drawBoardOptions();
      load();
    }) : null,
    myRole(project) === 'viewer' ? null : tagManager(project, tags, (now) => {
      tags = now;
      if (!tags.some((t) => t.id === f.tag)) f.tag = '';
      drawTagOptions();
      load();
    }),
    count, listBox, pagerBox);

  const filtered = () => f.type || f.status || f.tag || f.board;

  /** A page of the list; the review queue and the spam view are one moderation state each. */
  function fetchPage() {
    const moderation = f.view === 'all' ? undefined : f.view;
    const params = { project_id: project.id, type: f.type, status: f.status, tag: f.tag, board: f.board, sort: f.sort, moderation };
    return api('GET', `/v1/feedback?${q({ ...params, page, per_page: PER_PAGE })}`);
  }

  async function load() {
    listBox.setAttribute('aria-busy', 'true');
    let res;
    try {
      res = await fetchPage();
    } catch (e) {
      if (!alive()) return;
      listBox.removeAttribute('aria-busy');
      showError(e, 'Could not load feedback');
      return;
    }
    if (!alive()) return;
    listBox.removeAttribute('aria-busy');
    const entries = res.data || [];
    // A page emptied by deletions or merges: step back to the last page that has entries.
    if (!entries.length && page > 1 && res.total > 0) {
      page = Math.ceil(res.total / res.per_page);
      load();
      return;
    }
    const where = [f.view === 'all' ? '' : MODERATION[f.view].toLowerCase(), filtered() ? 'matching these filters' : ''].filter(Boolean).join(', ');
    count.textContent = `${res.total} ${res.total === 1 ? 'entry' : 'entries'}${where ? ` (${where})` : ''}`;
    pagerBox.replaceChildren(pager(res, ['entry', 'entries'], (p) => { page = p; load().then(() => $('h1').focus()); }));
    if (!entries.length) {
      listBox.replaceChildren(h('div', { class: 'card empty' }, h('p', null, emptyText())));
      return;
    }
    listBox.replaceChildren(h('ul', { class: 'records', id: 'feedback-list' }, entries.map((e) => entryItem(e, { project, onGone, onModerated, tags: () => tags, boards: () => boards }))));
  }

  function emptyText() {
    if (f.view === 'pending') return filtered() ? 'No entry matching these filters waits for review.' : 'Nothing waits for review.';
    if (f.view === 'spam') return filtered() ? 'No spam matches these filters.' : 'No entry is marked as spam.';
    return filtered() ? 'No feedback matches these filters.' : 'No feedback yet. Entries sent with the SDK, the API or the public board show up here.';
  }

  /** A deleted or merged entry leaves the list: the page is read again, so counts and pages stay true. */
  async function onGone(message) {
    await load();
    announce(message);
    $('h1').focus();
  }

  /** In the review queue or the spam view, an entry moderated into another state leaves it. */
  function onModerated(e) {
    if (f.view !== 'all' && e.moderation !== f.view) load();
  }

  await load();
}
