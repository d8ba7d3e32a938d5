// Shipmate dashboard: feedback boards. The switcher above the list (every board, or one), the
// admins' board manager (public, private to the team, or a segment of end users by their identify
// token's attributes), and each entry's board with a picker to move it.

import { field, formErr, h, options } from './dom.js';
import { api } from './api.js';
import { announce, busy, clearFormErrors, confirmDialog, setFieldError, showError, showFormError } from './ui.js';

const boardsPath = (project) => `/v1/projects/${encodeURIComponent(project.id)}/boards`;

export const VISIBILITY = { public: 'Public', private: 'Private (team only)', segment: 'Segment of end users' };

export async function loadBoards(project) {
  return (await api('GET', boardsPath(project))).data || [];
}

/** `{"plan": "enterprise", "seats": 50}` as `plan=enterprise, seats=50`. */
function segmentText(segment) {
  return Object.entries(segment || {}).map(([k, v]) => `${k}=${v}`).join(', ');
}

/** `plan=enterprise, seats=50` as an object (numbers stay numbers); null when it does not parse. */
function parseSegment(text) {
  const out = {};
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const at = part.indexOf('=');
    if (at < 1) return null;
    const v = part.slice(at + 1).trim();
    out[part.slice(0, at).trim()] = v !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
  }
  return Object.keys(out).length ? out : null;
}

/** What a board's row says about who sees it. */
function audience(b) {
  return b.visibility === 'segment' ? `${VISIBILITY.segment}: ${segmentText(b.segment)}` : VISIBILITY[b.visibility];
}

/**
 * The entry's board: its name, and for members a picker that moves it. `boards()` gives the
 * project's boards as they are now.
 */
export function entryBoard(e, boards, canMove) {
  const name = () => (boards().find((b) => b.id === e.board_id) || { name: 'Unknown board' }).name;
  const label = h('span', { class: 'board-label', 'data-entry-board': '' }, name());
  if (!canMove || boards().length < 2) return label;
  const select = h('select', { 'aria-label': `Board of \u201c${e.title}\u201d`, 'data-action': 'move' },
    options(boards().map((b) => [b.slug, b.name]), (boards().find((b) => b.id === e.board_id) || {}).slug));
  select.addEventListener('change', async () => {
    await busy(select, async () => {
      try {
        Object.assign(e, await api('PATCH', `/v1/feedback/${encodeURIComponent(e.id)}`, { body: { board: select.value } }));
      } catch (err) {
        showError(err, 'Could not move the entry');
        return;
      }
      label.textContent = name();
      announce(`\u201c${e.title}\u201d moved to ${name()}.`);
    });
  });
  return h('span', { class: 'board-move' }, select);
}

/** The admins' boards: add one, see who sees each, delete (moving entries to the default board). */
export function boardManager(project, boards, changed) {
  const listEl = h('ul', { class: 'board-list', id: 'board-list' });
  const name = h('input', { type: 'text', name: 'name', maxlength: '80', autocomplete: 'off' });
  const slug = h('input', { type: 'text', name: 'slug', maxlength: '48', autocomplete: 'off', pattern: '[a-z0-9][a-z0-9-]+[a-z0-9]' });
  const visibility = h('select', { name: 'visibility' }, options(Object.entries(VISIBILITY), 'public'));
  const segment = h('input', { type: 'text', name: 'segment', autocomplete: 'off', placeholder: 'plan=enterprise' });
  const segmentField = field({ id: 'board-segment', label: 'Segment', control: segment, hint: 'Attributes of the identify token, as key=value, comma-separated.' });
  const showSegment = () => segmentField.classList.toggle('hidden', visibility.value !== 'segment');
  visibility.addEventListener('change', showSegment);
  showSegment();
  name.addEventListener('input', () => {
    if (!slug.dataset.touched) slug.value = name.value.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48);
  });
  slug.addEventListener('input', () => { slug.dataset.touched = '1'; });
  const add = h('button', { type: 'submit', class: 'button-small' }, 'Add board');
  const form = h('form', { id: 'board-form', class: 'inline-form', novalidate: '' },
    field({ id: 'board-name', label: 'New board', control: name }),
    field({ id: 'board-slug', label: 'Slug', control: slug }),
    field({ id: 'board-visibility', label: 'Who sees it', control: visibility }),
    segmentField,
    h('div', { class: 'button-row' }, add), formErr());
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    const body = { name: name.value.trim(), slug: slug.value.trim(), visibility: visibility.value };
    if (visibility.value === 'segment') {
      body.segment = parseSegment(segment.value);
      if (!body.segment) {
        setFieldError(form, 'segment', 'Write one or more key=value pairs, e.g. plan=enterprise.');
        return;
      }
    }
    await busy(add, async () => {
      try {
        boards = [...boards, await api('POST', boardsPath(project), { body })];
      } catch (err) {
        showFormError(form, err);
        return;
      }
      announce(`Board \u201c${body.name}\u201d added.`);
      form.reset();
      delete slug.dataset.touched;
      showSegment();
      draw();
      changed(boards);
    });
  });
  function draw() {
    listEl.replaceChildren(...boards.map((b) => {
      const page = h('a', { href: `/f/${project.slug}/b/${b.slug}`, target: '_blank', rel: 'noopener' }, `/f/${project.slug}/b/${b.slug}`);
      const row = h('li', { 'data-board': b.slug },
        h('b', null, b.name), ' ', h('span', { class: 'muted small' }, audience(b)), ' ', page);
      if (b.default) {
        row.append(' ', h('span', { class: 'muted small' }, '(default: entries sent without a board land here)'));
        return row;
      }
      const del = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'aria-label': `Delete board ${b.name}` }, 'Delete');
      del.addEventListener('click', () => remove(b, del));
      row.append(' ', del);
      return row;
    }));
  }
  async function remove(b, button) {
    const home = boards.find((x) => x.default);
    const ok = await confirmDialog({ title: `Delete the board \u201c${b.name}\u201d?`, text: `Its entries move to \u201c${home.name}\u201d.`, ok: 'Delete' });
    if (!ok) return;
    await busy(button, async () => {
      try {
        await api('DELETE', `${boardsPath(project)}/${encodeURIComponent(b.id)}?move_to=${encodeURIComponent(home.id)}`);
      } catch (err) {
        showError(err, 'Could not delete the board');
        return;
      }
      boards = boards.filter((x) => x.id !== b.id);
      announce(`Board \u201c${b.name}\u201d deleted; its entries are on \u201c${home.name}\u201d.`);
      draw();
      changed(boards);
    });
  }
  draw();
  return h('details', { class: 'card board-manager', id: 'board-manager' }, h('summary', null, 'Boards'), listEl, form);
}
