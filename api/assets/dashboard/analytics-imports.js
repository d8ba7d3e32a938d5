// Shipmate dashboard: the Imports tab of analytics (/dashboard/p/<project>/analytics/imports).
// Members upload Plausible's export (the ZIP its "Export data" makes, or one of its CSV files);
// a worker applies it whole or not at all, and the list shows each import's progress while it is
// pending (polled every second), then its days and rows, or why it failed. Imported days count in
// the unfiltered reads before the project's first own event; deleting an import removes them.

import { field, fmtNum, formErr, h } from './dom.js';
import { api, q } from './api.js';
import { announce, busy, clearFormErrors, confirmDialog, later, setFieldError, showFormError } from './ui.js';

const POLL_MS = 1000;

export function importsView({ project, alive, report }) {
  const listBox = h('div', { id: 'imports-box', 'aria-live': 'polite' }, h('p', { class: 'loading' }, 'Loading imports\u2026'));
  const listCard = h('section', { class: 'card', 'aria-labelledby': 'imports-title' },
    h('h2', { id: 'imports-title' }, 'Imports'),
    h('p', { class: 'muted' }, 'History from Plausible: its days count in the reads before this project\u2019s first own event, and in filtered reads not at all.'),
    listBox);
  let seq = 0;
  let polling = false;

  async function load() {
    const mine = ++seq;
    let res;
    try {
      res = await api('GET', `/v1/analytics/imports?${q({ project_id: project.id })}`);
    } catch (e) {
      if (alive() && mine === seq) report(e, 'Could not load the imports');
      return;
    }
    if (!alive() || mine !== seq) return;
    const list = (res && res.data) || [];
    listBox.replaceChildren(list.length ? table(list) : h('p', { class: 'muted', id: 'imports-empty' }, 'No imports yet.'));
    // A pending import is read again until the worker is done with it.
    if (list.some((i) => i.status === 'pending') && !polling) {
      polling = true;
      later(() => { polling = false; if (alive()) load(); }, POLL_MS);
    }
  }

  function status(i) {
    if (i.status === 'pending') {
      const bar = h('progress', { max: '100', value: String(i.progress), 'aria-label': `${i.file_name}: ${i.progress}% applied` });
      return h('span', null, bar, ` ${i.progress}%`);
    }
    if (i.status === 'failed') return h('span', { class: 'error-text' }, `Failed: ${i.error || 'unknown error'}`);
    return 'Done';
  }

  function table(list) {
    return h('div', { class: 'table-wrap' }, h('table', { id: 'imports-table' },
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'File'), h('th', { scope: 'col' }, 'Status'), h('th', { scope: 'col' }, 'Days'),
        h('th', { scope: 'col', class: 'num' }, 'Rows'), h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      h('tbody', null, list.map((i) => {
        const del = h('button', { type: 'button', class: 'button-danger-quiet button-small member-only', 'data-action': 'delete-import', 'aria-label': `Delete the import of ${i.file_name}` }, 'Delete');
        del.addEventListener('click', () => remove(i, del));
        return h('tr', { 'data-import': i.id, 'data-status': i.status },
          h('td', { class: 'cell-clip' }, i.file_name),
          h('td', { 'data-import-status': '' }, status(i)),
          h('td', null, i.from && i.to ? `${i.from} \u2013 ${i.to}` : '\u2014'),
          h('td', { class: 'num' }, fmtNum(Number(i.rows) || 0)),
          h('td', { class: 'actions' }, del));
      }))));
  }

  async function remove(i, btn) {
    const ok = await confirmDialog({ title: `Delete the import of ${i.file_name}?`, text: 'Its days leave every read.', ok: 'Delete import' });
    if (!ok) return;
    await busy(btn, async () => {
      try {
        await api('DELETE', `/v1/analytics/imports/${encodeURIComponent(i.id)}`);
      } catch (e) {
        report(e, 'Could not delete the import');
        return;
      }
      announce(`The import of ${i.file_name} was deleted.`);
      await load();
    });
  }

  const file = h('input', { type: 'file', name: 'file', accept: '.zip,.csv' });
  const btn = h('button', { type: 'submit' }, 'Import');
  const form = h('form', { id: 'import-form', novalidate: true },
    field({ id: 'import-file', label: 'Plausible export', control: file, hint: 'The ZIP of Plausible\u2019s Settings \u2192 Imports & Exports \u2192 Export data, or one of its CSV files; up to 100 MB.' }),
    formErr(), btn);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    const chosen = file.files && file.files[0];
    if (!chosen) { setFieldError(form, 'file', 'Choose the export to import.').focus(); return; }
    const data = new FormData();
    data.append('file', chosen, chosen.name);
    busy(btn, async () => {
      try {
        await api('POST', `/v1/analytics/imports?${q({ project_id: project.id })}`, { form: data });
      } catch (e) {
        showFormError(form, e);
        return;
      }
      form.reset();
      announce(`${chosen.name} uploaded: importing now.`);
      await load();
    });
  });
  const formCard = h('section', { class: 'card member-only', 'aria-labelledby': 'import-new-title' },
    h('h2', { id: 'import-new-title' }, 'Import from Plausible'), form);

  return { nodes: [listCard, formCard], load: () => load() };
}
