// Shipmate dashboard: tags on feedback. The project's tags (made and deleted by members), each
// entry's chips and its tag picker, and the list's tag filter.

import { disclosure, field, formErr, h } from './dom.js';
import { api } from './api.js';
import { announce, busy, clearFormErrors, confirmDialog, showError, showFormError } from './ui.js';

const tagsPath = (project) => `/v1/projects/${encodeURIComponent(project.id)}/tags`;

export async function loadTags(project) {
  return (await api('GET', tagsPath(project))).data || [];
}

/** One tag as a chip: its colour through a CSS variable (the CSP forbids inline styles). */
export function chip(tag) {
  const el = h('span', { class: 'tag-chip', 'data-tag': tag.id }, tag.name);
  el.style.setProperty('--tag', tag.color);
  return el;
}

/**
 * The entry's tags: `list` (its chips), and `toggle` with `panel`, a checkbox per project tag that
 * replaces the entry's tags when saved. `tags()` gives the project's tags as they are now.
 */
export function entryTags(e, tags) {
  const list = h('span', { class: 'tag-chips', 'data-entry-tags': '' });
  const draw = () => list.replaceChildren(...(e.tags || []).map(chip));
  draw();
  const panel = h('form', { class: 'tags-panel', id: `fb-tags-${e.id}`, novalidate: '' });
  const toggle = disclosure('Tags', panel, () => fill(), { 'data-action': 'tags' });
  function fill() {
    const have = new Set((e.tags || []).map((t) => t.id));
    const all = tags();
    const save = h('button', { type: 'submit', class: 'button-small' }, 'Save tags');
    panel.replaceChildren(
      all.length
        ? h('fieldset', { class: 'tag-picks' }, h('legend', { class: 'field-label' }, 'Tags'),
          all.map((t) => h('label', { class: 'check' }, h('input', { type: 'checkbox', value: t.id, checked: have.has(t.id) }), chip(t))))
        : h('p', { class: 'muted small' }, 'No tags yet: add them under \u201cTags\u201d above the list.'),
      formErr(),
      all.length ? h('div', { class: 'button-row' }, save) : null);
  }
  panel.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(panel);
    const ids = [...panel.querySelectorAll('input[type="checkbox"]:checked')].map((b) => b.value);
    await busy(panel.querySelector('button[type="submit"]'), async () => {
      try {
        Object.assign(e, await api('PATCH', `/v1/feedback/${encodeURIComponent(e.id)}`, { body: { tags: ids } }));
      } catch (err) {
        showFormError(panel, err);
        return;
      }
      draw();
      toggle.click(); // closes the panel
      announce(`\u201c${e.title}\u201d is tagged ${e.tags.length ? e.tags.map((t) => t.name).join(', ') : 'with nothing'}.`);
    });
  });
  return { list, toggle, panel };
}

/** The project's tags, to add and delete; `changed(tags)` runs after each change. */
export function tagManager(project, tags, changed) {
  const listEl = h('ul', { class: 'tag-list', id: 'tag-list' });
  const name = h('input', { type: 'text', name: 'name', maxlength: '40', autocomplete: 'off' });
  const color = h('input', { type: 'color', name: 'color', value: '#6b7280' });
  const add = h('button', { type: 'submit', class: 'button-small' }, 'Add tag');
  const form = h('form', { id: 'tag-form', class: 'inline-form', novalidate: '' },
    field({ id: 'tag-name', label: 'New tag', control: name }),
    field({ id: 'tag-color', label: 'Colour', control: color }),
    h('div', { class: 'button-row' }, add), formErr());
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    await busy(add, async () => {
      try {
        const tag = await api('POST', tagsPath(project), { body: { name: name.value.trim(), color: color.value } });
        tags = [...tags, tag].sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()));
      } catch (err) {
        showFormError(form, err);
        return;
      }
      announce(`Tag \u201c${name.value.trim()}\u201d added.`);
      name.value = '';
      draw();
      changed(tags);
    });
  });
  function draw() {
    listEl.replaceChildren(...tags.map((t) => {
      const del = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'aria-label': `Delete tag ${t.name}` }, 'Delete');
      del.addEventListener('click', async () => {
        if (!(await confirmDialog({ title: `Delete the tag \u201c${t.name}\u201d?`, text: 'Entries keep their other tags.', ok: 'Delete' }))) return;
        await busy(del, async () => {
          try {
            await api('DELETE', `${tagsPath(project)}/${encodeURIComponent(t.id)}`);
          } catch (err) {
            showError(err, 'Could not delete the tag');
            return;
          }
          tags = tags.filter((x) => x.id !== t.id);
          draw();
          changed(tags);
        });
      });
      return h('li', null, chip(t), del);
    }));
  }
  draw();
  return h('details', { class: 'card tag-manager', id: 'tag-manager' }, h('summary', null, 'Tags'), listEl, form);
}
