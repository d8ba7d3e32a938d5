// Shipmate dashboard: choosing feedback entries of a project: the target of a merge (one) or the
// requests a changelog entry answers (several). A search box narrows the project's entries by
// title; suggestions, when given, come first.

import { badge, h, nextId, plural, statusLabel } from './dom.js';
import { allPages } from './api.js';

const TYPES = { bug: 'Bug', feature: 'Feature request', feedback: 'Feedback' };
// Past this many matches the list asks for a narrower search instead of growing without end.
const SHOWN = 50;

/** Every entry of the project (merged duplicates never come back from the API), top voted first. */
export function projectEntries(project) {
  return allPages('/v1/feedback', { project_id: project.id, sort: 'top' });
}

/** The entry's type and status as badges, for a picker option or a linked request. */
export function entryBadges(e) {
  return [badge('type', e.type, TYPES[e.type] || e.type), badge('status', e.status, statusLabel(e.status))];
}

/**
 * A searchable list of `entries` (less `exclude`): radio buttons, or checkboxes with `multiple`.
 * `suggestions` ([{id, similarity}]) are listed first. `onChange` hears every change of the
 * selection; `selected()` answers the chosen ids in the order they were chosen.
 */
export function feedbackPicker({ entries, label, multiple = false, selected = [], exclude = null, suggestions = [], onChange = () => {} }) {
  const id = nextId('picker');
  const chosen = new Set(selected);
  const pool = entries.filter((e) => e.id !== exclude);
  const byId = new Map(pool.map((e) => [e.id, e]));
  const suggested = suggestions.filter((s) => byId.has(s.id));
  const suggestedIds = new Set(suggested.map((s) => s.id));

  const search = h('input', { type: 'search', id: `${id}-q`, autocomplete: 'off', placeholder: 'Search by title' });
  const list = h('div', { class: 'picker-options', id: `${id}-options`, 'aria-live': 'polite' });
  search.addEventListener('input', draw);

  function option(e, similarity) {
    const input = h('input', {
      type: multiple ? 'checkbox' : 'radio', name: `${id}-choice`, value: e.id, checked: chosen.has(e.id),
    });
    input.addEventListener('change', () => {
      if (!multiple) chosen.clear();
      if (input.checked) chosen.add(e.id); else chosen.delete(e.id);
      onChange([...chosen]);
    });
    return h('li', { 'data-option': e.id },
      h('label', { class: 'check pick' }, input,
        h('span', { class: 'pick-title' }, e.title),
        h('span', { class: 'pick-meta' }, entryBadges(e), h('span', null, `score ${e.score}`),
          similarity === undefined ? null : h('span', { class: 'score', title: 'How close in meaning' }, `${Math.round(similarity * 100)}% similar`))));
  }

  function draw() {
    const words = search.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const fits = (e) => words.every((w) => e.title.toLowerCase().includes(w));
    const sections = [];
    const hints = suggested.filter((s) => chosen.has(s.id) || fits(byId.get(s.id)));
    if (hints.length) {
      sections.push(h('p', { class: 'picker-head' }, 'Similar entries'),
        h('ul', { class: 'picker-list', 'data-group': 'suggested' }, hints.map((s) => option(byId.get(s.id), s.similarity))));
    }
    // The chosen entries stay in view whatever the search, so a choice is never hidden.
    const rest = pool.filter((e) => !suggestedIds.has(e.id) && (chosen.has(e.id) || fits(e)));
    const shown = rest.slice(0, SHOWN);
    if (shown.length) {
      sections.push(h('p', { class: 'picker-head' }, hints.length ? 'Other entries' : 'Entries'),
        h('ul', { class: 'picker-list', 'data-group': 'all' }, shown.map((e) => option(e))));
    }
    if (rest.length > shown.length) {
      sections.push(h('p', { class: 'muted small', 'data-more': '' }, `Showing ${shown.length} of ${plural(rest.length, 'match', 'matches')}: search to narrow them down.`));
    }
    if (!sections.length) sections.push(h('p', { class: 'muted small' }, pool.length ? 'No entry matches this search.' : 'This project has no other entries.'));
    list.replaceChildren(...sections);
  }
  draw();

  const el = h('fieldset', { class: 'picker' },
    h('legend', null, label),
    h('label', { class: 'sr-only', for: search.id }, `Search: ${label}`),
    search, list);
  return { el, selected: () => [...chosen] };
}
