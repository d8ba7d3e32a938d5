// Shipmate dashboard: saved segments in the analytics query bar. A segment is a name for a set of
// filters (POST /v1/analytics/segments); picking one adds `segment=<id>` to every read, on top of
// the filter chips. "Save as segment" names the chips on display; members delete a segment here
// (its share links go with it).

import { h } from './dom.js';
import { api, q } from './api.js';
import { announce, busy, confirmDialog } from './ui.js';

/** The project's segments, read once per project and kept current by this picker's own changes. */
const lists = new Map();

export async function segmentsOf(projectId) {
  if (!lists.has(projectId)) {
    const res = await api('GET', `/v1/analytics/segments?${q({ project_id: projectId })}`);
    lists.set(projectId, (res && res.data) || []);
  }
  return lists.get(projectId);
}

/** `{ node, update(query) }`: the picker, repainted with each query (`change` sets a new one). */
export function segmentPicker({ project, change, report }) {
  const node = h('div', { class: 'segment-picker', id: 'segment-box' });
  let query = null;

  async function update(next) {
    query = next;
    let list;
    try {
      list = await segmentsOf(project.id);
    } catch (e) {
      report(e, 'Could not load the segments');
      return;
    }
    if (query !== next) return;
    const select = h('select', { id: 'segment-picker', name: 'segment', 'aria-label': 'Segment' },
      h('option', { value: '' }, 'All visitors'),
      list.map((s) => h('option', { value: s.id, selected: s.id === query.segment }, s.name)));
    select.addEventListener('change', () => change({ ...query, segment: select.value }));
    const filtered = Object.keys(query.filters).length > 0;
    const save = filtered ? h('button', { type: 'button', class: 'button-secondary button-small', id: 'segment-save' }, 'Save filters as segment') : null;
    if (save) save.addEventListener('click', () => nameForm(save));
    const chosen = list.find((s) => s.id === query.segment);
    const remove = chosen ? h('button', { type: 'button', class: 'button-danger-quiet button-small', id: 'segment-delete' }, 'Delete segment') : null;
    if (remove) remove.addEventListener('click', () => drop(chosen, remove));
    node.replaceChildren(...[h('label', { for: 'segment-picker', class: 'muted small' }, 'Segment'), select, save, remove].filter(Boolean));
  }

  function nameForm(save) {
    const input = h('input', { type: 'text', id: 'segment-name', name: 'name', maxlength: '100', placeholder: 'German mobile visitors', 'aria-label': 'Segment name', required: true });
    const ok = h('button', { type: 'submit', class: 'button-small', id: 'segment-create' }, 'Save');
    const form = h('form', { class: 'inline-form', id: 'segment-form' }, input, ok);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      busy(ok, async () => {
        let made;
        try {
          made = await api('POST', '/v1/analytics/segments', { body: { project_id: project.id, name: input.value.trim(), filters: query.filters } });
        } catch (err) {
          report(err, 'Could not save the segment');
          return;
        }
        (await segmentsOf(project.id)).push(made);
        announce(`Segment ${made.name} saved.`);
        // The segment holds the filters now: its chips would only repeat them.
        await change({ ...query, filters: {}, segment: made.id });
      });
    });
    save.replaceWith(form);
    input.focus();
  }

  async function drop(segment, btn) {
    const ok = await confirmDialog({ title: `Delete the segment ${segment.name}?`, text: 'Share links locked to it stop working.', ok: 'Delete segment' });
    if (!ok) return;
    await busy(btn, async () => {
      try {
        await api('DELETE', `/v1/analytics/segments/${encodeURIComponent(segment.id)}`);
      } catch (e) {
        report(e, 'Could not delete the segment');
        return;
      }
      const list = await segmentsOf(project.id);
      list.splice(list.indexOf(segment), 1);
      announce(`Segment ${segment.name} deleted.`);
      await change({ ...query, segment: '' });
    });
  }

  return { node, update };
}
