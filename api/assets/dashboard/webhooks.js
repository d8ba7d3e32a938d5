// Shipmate dashboard: a project's webhooks, for owners and admins. /dashboard/p/<projectId>/webhooks lists the
// endpoints and adds one; /webhooks/<webhookId> is one endpoint: its settings, signing secret (masked until
// revealed), a test ping, and its deliveries with their payloads and a retry for failed ones. Errors are shown
// beside what failed, from the problem's `detail`. Shapes: docs/webhooks.md.

import { badge, capitalize, field, fmtNum, formErr, h, options, timeEl } from './dom.js';
import { api, ApiError } from './api.js';
import { myRole } from './roles.js';
import { announce, busy, clearFormErrors, confirmDialog, copyText, later, pageHead, setFieldError, setLoading, setMain, setTitle, showError, showFormError } from './ui.js';
import { navigate, projectPath } from './router.js';
import { githubCard } from './feedback-github.js';

const ALL = '*';
// What an endpoint receives: the signed event, or a chat tool's incoming-webhook message.
const FORMATS = { standard: 'Signed JSON (Standard Webhooks)', slack: 'Slack message', discord: 'Discord message' };
const DELIVERY_STATUS = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' };
// While a delivery is pending the table refreshes itself: quickly just after a test or a retry, then slowly.
const POLL_FAST_MS = 1500;
const POLL_SLOW_MS = 10000;
const FAST_FOR_MS = 30000;

let eventNames = null; // GET /v1/webhooks/events: the same for every project, fetched once

async function loadEventNames() {
  if (!eventNames) {
    eventNames = api('GET', '/v1/webhooks/events').then((r) => (r && Array.isArray(r.data) ? r.data : []));
    eventNames.catch(() => { eventNames = null; }); // try again next time
  }
  return eventNames;
}

const hooksPath = (project) => `/v1/projects/${encodeURIComponent(project.id)}/webhooks`;

function when(iso) {
  if (!iso) return '\u2014';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '\u2014';
  return h('time', { datetime: iso, title: d.toISOString() }, d.toLocaleString('en-GB', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', second: '2-digit' }));
}

/** Shows a failed call's problem `detail` in `slot` (beside the control); a lost session still goes to sign-in. */
function inlineError(slot, err, what) {
  if (err instanceof ApiError && err.status === 401) { showError(err, what); return; }
  const e = err instanceof ApiError ? err : new ApiError(0, { detail: String((err && err.message) || err) });
  const fields = e.errors.map((fe) => `${fe.field}: ${fe.message}`).join('; ');
  slot.textContent = `${what}: ${capitalize(e.message)}${fields && !e.message.includes(fields) ? ` (${fields})` : ''}`;
  slot.scrollIntoView({ block: 'nearest' });
}

function eventsSummary(events) {
  const list = Array.isArray(events) ? events : [];
  if (list.includes(ALL)) return badge('status', 'published', 'All events');
  return h('span', { class: 'badges' }, list.map((e) => h('span', { class: 'badge mono-badge' }, e)));
}

function stateBadge(hook) {
  return hook.enabled ? badge('status', 'approved', 'Enabled') : badge('status', 'draft', 'Disabled');
}

export async function screenWebhooks(ctx) {
  const { project } = ctx;
  setTitle('Webhooks', project.name);
  const role = myRole(project);
  if (role !== 'owner' && role !== 'admin') {
    setMain(pageHead('Webhooks', null, project),
      h('section', { class: 'card', id: 'webhooks-forbidden' }, h('p', null, 'Only owners and admins of this project manage its webhooks.')));
    return;
  }
  if (ctx.sub) await screenEndpoint(ctx);
  else await screenList(ctx);
}

// ---------------------------------------------------------------- the form (add and edit)

/**
 * The endpoint form: URL, description and events ("All events" or a choice). `hook` prefills it for
 * editing. Calls `save(body)`, which resolves or rejects with the API's error (shown in the form).
 */
function endpointForm({ id, hook, names, submitLabel, save, cancel }) {
  const url = h('input', { type: 'url', name: 'url', required: true, autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off', placeholder: 'https://example.com/hooks/shipmate', value: hook ? hook.url : '' });
  const description = h('input', { type: 'text', name: 'description', maxlength: '200', autocomplete: 'off', value: hook && hook.description ? hook.description : '' });
  const format = h('select', { name: 'format' }, options(Object.entries(FORMATS), hook ? hook.format : 'standard'));
  const chosen = new Set(hook ? hook.events : []);
  const all = h('input', { type: 'checkbox', id: `${id}-ev-all`, value: ALL, checked: !hook || chosen.has(ALL) });
  const boxes = names.map((n) => h('input', { type: 'checkbox', id: `${id}-ev-${n.replace(/[^a-z0-9]+/gi, '-')}`, value: n, 'data-event': n, checked: chosen.has(n) }));
  const sync = () => { for (const b of boxes) b.disabled = all.checked; };
  all.addEventListener('change', sync);
  sync();
  const submit = h('button', { type: 'submit' }, submitLabel);
  const form = h('form', { id, novalidate: '' },
    field({ id: `${id}-url`, label: 'Endpoint URL', control: url, hint: 'Where Shipmate POSTs the events: http(s), reachable from the server. Private and loopback addresses are refused unless the server allows them.' }),
    field({ id: `${id}-description`, label: 'Description (optional)', control: description, name: 'description' }),
    field({ id: `${id}-format`, label: 'Format', control: format, name: 'format', hint: 'Slack and Discord: paste the channel\'s incoming-webhook URL; each event arrives as a sentence with a link.' }),
    h('fieldset', { class: 'events', 'aria-describedby': `${id}-events-err` },
      h('legend', { class: 'field-label' }, 'Events'),
      h('label', { class: 'check', for: all.id }, all, h('span', null, 'All events', h('span', { class: 'muted' }, ' (including ones added later)'))),
      h('div', { class: 'event-grid' }, boxes.map((b) => h('label', { class: 'check mono', for: b.id }, b, b.value))),
      h('p', { class: 'field-err', id: `${id}-events-err`, 'data-err-for': 'events', 'data-label': 'Events' })),
    formErr(),
    h('div', { class: 'button-row' }, submit, cancel || null));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    const events = all.checked ? [ALL] : boxes.filter((b) => b.checked).map((b) => b.value);
    if (!url.value.trim()) { setFieldError(form, 'url', 'is required').focus(); return; }
    if (!events.length) { setFieldError(form, 'events', 'Choose at least one event, or all of them.'); all.focus(); return; }
    await busy(submit, async () => {
      try {
        const body = { url: url.value.trim(), events };
        // A new endpoint without a description leaves it out; an edit sends it when it changed (even to empty).
        const text = description.value.trim();
        if (hook ? text !== (hook.description || '') : text) body.description = text;
        if (format.value !== (hook ? hook.format : 'standard')) body.format = format.value;
        await save(body);
      } catch (e) {
        // url_not_allowed (a private or loopback address) belongs beside the URL, even without `errors`.
        if (e instanceof ApiError && !e.errors.length && /^url/.test(e.code)) {
          setFieldError(form, 'url', e.message).focus();
          return;
        }
        showFormError(form, e);
      }
    });
  });
  return form;
}

// ---------------------------------------------------------------- the list

async function screenList({ project, alive }) {
  const listBox = h('div', { 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading webhooks\u2026'));
  const formBox = h('div', null, h('p', { class: 'loading' }, 'Loading events\u2026'));
  setMain(
    pageHead('Webhooks', 'Shipmate POSTs signed JSON (or a Slack or Discord message) to your endpoints when something happens in this project, and retries until they answer 2xx.', project),
    h('section', { class: 'card', 'aria-labelledby': 'webhooks-title' }, h('h2', { id: 'webhooks-title', tabindex: '-1' }, 'Endpoints'), listBox),
    h('section', { class: 'card', 'aria-labelledby': 'add-webhook-title' }, h('h2', { id: 'add-webhook-title' }, 'Add an endpoint'), formBox),
    githubCard(project),
  );
  await Promise.all([loadList(), loadForm()]);

  async function loadForm() {
    let names;
    try {
      names = await loadEventNames();
    } catch (e) {
      if (!alive()) return;
      formBox.replaceChildren(h('p', { class: 'form-err' }, `The event names could not be loaded: ${e.message}`));
      return;
    }
    if (!alive()) return;
    formBox.replaceChildren(endpointForm({
      id: 'webhook-form',
      names,
      submitLabel: 'Add endpoint',
      save: async (body) => {
        const hook = await api('POST', hooksPath(project), { body });
        announce(`Endpoint added. Its signing secret is on the next page.`);
        navigate(projectPath(project, 'webhooks', hook.id));
      },
    }));
  }

  async function loadList() {
    let hooks;
    try {
      hooks = (await api('GET', hooksPath(project))).data || [];
    } catch (e) {
      if (!alive()) return;
      listBox.removeAttribute('aria-busy');
      listBox.replaceChildren(h('p', { class: 'form-err', role: 'alert' }, `The webhooks could not be loaded: ${e.message}`));
      if (e instanceof ApiError && e.status === 401) showError(e);
      return;
    }
    if (!alive()) return;
    listBox.removeAttribute('aria-busy');
    if (!hooks.length) {
      listBox.replaceChildren(h('p', { class: 'muted', id: 'no-webhooks' }, 'No endpoints yet. Add one below, then send it a test ping.'));
      return;
    }
    listBox.replaceChildren(h('div', { class: 'table-wrap' }, h('table', { id: 'webhook-table', class: 'stack-sm' },
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'Endpoint'), h('th', { scope: 'col' }, 'Events'),
        h('th', { scope: 'col' }, 'Status'), h('th', { scope: 'col' }, 'Created'))),
      h('tbody', null, hooks.map((w) => h('tr', { 'data-webhook': w.id },
        h('td', { class: 'cell-clip' },
          h('a', { href: projectPath(project, 'webhooks', w.id), 'data-nav': '', class: 'mono webhook-url' }, w.url),
          w.description ? h('span', { class: 'small muted block' }, w.description) : null,
          w.format !== 'standard' ? h('span', { class: 'small muted block', 'data-format': w.format }, FORMATS[w.format]) : null),
        h('td', null, eventsSummary(w.events)),
        h('td', null, stateBadge(w)),
        h('td', null, timeEl(w.created_at))))))));
  }
}

// ---------------------------------------------------------------- one endpoint

async function screenEndpoint({ project, alive, sub }) {
  const path = `${hooksPath(project)}/${encodeURIComponent(sub)}`;
  const back = h('a', { class: 'button button-secondary', href: projectPath(project, 'webhooks'), 'data-nav': '' }, '\u2190 All webhooks');
  setLoading('Loading the webhook\u2026');
  let hook;
  let names;
  try {
    [hook, names] = await Promise.all([api('GET', path), loadEventNames().catch(() => [])]);
  } catch (e) {
    if (!alive()) return;
    if (e instanceof ApiError && (e.status === 404 || e.status === 422)) {
      setMain(pageHead('Webhook not found', null, project, back),
        h('section', { class: 'card' }, h('p', null, 'This webhook does not exist, or it was deleted.')));
      return;
    }
    setMain(pageHead('Webhook endpoint', null, project, back), h('p', { class: 'form-err', role: 'alert' }, `The webhook could not be loaded: ${e.message}`));
    if (e instanceof ApiError && e.status === 401) showError(e);
    return;
  }
  if (!alive()) return;

  const detailsBox = h('div');
  const actionErr = h('p', { class: 'form-err', role: 'alert', id: 'webhook-error' });
  const secretBox = h('div');
  const deliveriesBox = h('div', { 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading deliveries\u2026'));
  const deliveryErr = h('p', { class: 'form-err', role: 'alert', id: 'delivery-error' });
  const testBtn = h('button', { type: 'button', id: 'send-test' }, 'Send test');
  const toggleBtn = h('button', { type: 'button', class: 'button-secondary', id: 'toggle-webhook' });
  const editBtn = h('button', { type: 'button', class: 'button-secondary', id: 'edit-webhook', 'aria-expanded': 'false' }, 'Edit');
  const deleteBtn = h('button', { type: 'button', class: 'button-danger-quiet', id: 'delete-webhook' }, 'Delete');
  const refreshBtn = h('button', { type: 'button', class: 'button-secondary button-small', id: 'refresh-deliveries' }, 'Refresh');
  const editBox = h('div');

  setMain(
    pageHead('Webhook endpoint', null, project, back),
    h('section', { class: 'card', 'aria-labelledby': 'endpoint-title' },
      h('h2', { id: 'endpoint-title' }, 'Endpoint'), detailsBox, editBox, actionErr,
      h('div', { class: 'button-row' }, testBtn, toggleBtn, editBtn, deleteBtn)),
    h('section', { class: 'card', 'aria-labelledby': 'secret-title' },
      h('h2', { id: 'secret-title' }, 'Signing secret'),
      h('p', { class: 'muted', id: 'webhook-secret-hint' }, hook.format === 'standard'
        ? 'Each delivery carries webhook-id, webhook-timestamp and webhook-signature headers (Standard Webhooks). Verify them with this secret, for example with verifyWebhook from @shipmate/sdk, before trusting a request.'
        : 'Slack and Discord messages are not signed: their incoming-webhook URL is the secret, so keep it private. The secret signs again if you switch the format to signed JSON.'),
      secretBox),
    h('section', { class: 'card', 'aria-labelledby': 'deliveries-title' },
      h('div', { class: 'card-head' }, h('h2', { id: 'deliveries-title', tabindex: '-1' }, 'Deliveries'), refreshBtn),
      h('p', { class: 'muted' }, 'Newest first. A delivery that does not get a 2xx within 10 seconds is retried on the server\u2019s schedule, then marked failed.'),
      deliveryErr, deliveriesBox),
  );

  drawDetails();
  drawSecret(false);

  testBtn.addEventListener('click', () => busy(testBtn, async () => {
    actionErr.textContent = '';
    let res;
    try {
      res = await api('POST', `${path}/test`);
    } catch (e) {
      inlineError(actionErr, e, 'Could not send a test');
      return;
    }
    announce('Test ping queued. It appears under Deliveries.');
    fastUntil = Date.now() + FAST_FOR_MS;
    highlight = res && res.delivery_id;
    await loadDeliveries();
  }));

  toggleBtn.addEventListener('click', async () => {
    if (hook.enabled && !(await confirmDialog({
      title: 'Disable this endpoint?',
      text: 'No new events are sent to it until you enable it again. Its secret and delivery log stay.',
      ok: 'Disable',
    }))) return;
    await patch({ enabled: !hook.enabled }, toggleBtn, hook.enabled ? 'Endpoint disabled.' : 'Endpoint enabled.');
  });

  editBtn.addEventListener('click', () => {
    if (editBox.firstChild) { closeEdit(); return; }
    editBtn.setAttribute('aria-expanded', 'true');
    const cancel = h('button', { type: 'button', class: 'button-secondary' }, 'Cancel');
    cancel.addEventListener('click', closeEdit);
    editBox.replaceChildren(endpointForm({
      id: 'webhook-edit', hook, names, submitLabel: 'Save changes', cancel,
      save: async (body) => {
        hook = await api('PATCH', path, { body });
        closeEdit();
        drawDetails();
        announce('Endpoint saved.');
      },
    }));
    const first = editBox.querySelector('input');
    if (first) first.focus();
  });

  deleteBtn.addEventListener('click', async () => {
    const ok = await confirmDialog({
      title: 'Delete this endpoint?',
      text: `Shipmate stops sending events to ${hook.url} at once, and its delivery history is deleted. This cannot be undone.`,
      ok: 'Delete endpoint',
    });
    if (!ok) return;
    await busy(deleteBtn, async () => {
      actionErr.textContent = '';
      try {
        await api('DELETE', path);
      } catch (e) {
        inlineError(actionErr, e, 'Could not delete the endpoint');
        return;
      }
      announce('Endpoint deleted.');
      navigate(projectPath(project, 'webhooks'));
    });
  });

  refreshBtn.addEventListener('click', () => busy(refreshBtn, loadDeliveries));

  function closeEdit() {
    editBox.replaceChildren();
    editBtn.setAttribute('aria-expanded', 'false');
    editBtn.focus();
  }

  async function patch(body, btn, done) {
    await busy(btn, async () => {
      actionErr.textContent = '';
      try {
        hook = await api('PATCH', path, { body });
      } catch (e) {
        inlineError(actionErr, e, 'Could not change the endpoint');
        return;
      }
      drawDetails();
      announce(done);
    });
  }

  function drawDetails() {
    toggleBtn.textContent = hook.enabled ? 'Disable' : 'Enable';
    // The worker does not send to a disabled endpoint: a test would only pile up failed attempts.
    testBtn.disabled = !hook.enabled;
    testBtn.title = hook.enabled ? '' : 'Enable the endpoint to send a test';
    detailsBox.replaceChildren(h('dl', { class: 'facts', id: 'webhook-details' },
      h('dt', null, 'URL'), h('dd', { class: 'mono', id: 'webhook-url' }, hook.url),
      h('dt', null, 'Description'), h('dd', { id: 'webhook-description' }, hook.description || h('span', { class: 'muted' }, 'None')),
      h('dt', null, 'Format'), h('dd', { id: 'webhook-format' }, FORMATS[hook.format] || hook.format),
      h('dt', null, 'Events'), h('dd', { id: 'webhook-events' }, eventsSummary(hook.events)),
      h('dt', null, 'Status'), h('dd', { id: 'webhook-status' }, stateBadge(hook)),
      h('dt', null, 'Created'), h('dd', null, timeEl(hook.created_at))));
  }

  // The secret stays masked until revealed, like the project's API key: it must not end up in a screenshot.
  function drawSecret(revealed) {
    const input = h('input', { type: revealed ? 'text' : 'password', id: 'webhook-secret', readOnly: true, value: hook.secret || '', spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'webhook-secret-hint' });
    input.addEventListener('focus', () => input.select());
    const reveal = h('button', { type: 'button', class: 'button-secondary', id: 'reveal-secret', 'aria-pressed': String(revealed) }, revealed ? 'Hide' : 'Reveal');
    reveal.addEventListener('click', () => {
      const show = input.type === 'password';
      input.type = show ? 'text' : 'password';
      reveal.textContent = show ? 'Hide' : 'Reveal';
      reveal.setAttribute('aria-pressed', String(show));
    });
    const copy = h('button', { type: 'button', class: 'button-secondary', id: 'copy-secret', onclick: () => copyText(input.value, 'Signing secret') }, 'Copy');
    const rotate = h('button', { type: 'button', class: 'button-secondary', id: 'rotate-secret' }, 'Rotate secret');
    const err = h('p', { class: 'form-err', role: 'alert', id: 'secret-error' });
    rotate.addEventListener('click', async () => {
      const ok = await confirmDialog({
        title: 'Rotate the signing secret?',
        text: 'A new secret is issued. For 24 hours every delivery is signed with both the new and the previous secret, so you can update your receiver without losing events.',
        ok: 'Rotate secret',
        danger: false,
      });
      if (!ok) return;
      await busy(rotate, async () => {
        err.textContent = '';
        try {
          hook = await api('POST', `${path}/rotate-secret`);
        } catch (e) {
          inlineError(err, e, 'Could not rotate the secret');
          return;
        }
        drawSecret(input.type === 'text');
        announce('New signing secret issued. The previous one keeps verifying for 24 hours.');
        const fresh = document.getElementById('rotate-secret');
        if (fresh) fresh.focus();
      });
    });
    secretBox.replaceChildren(
      h('div', { class: 'field' },
        h('label', { for: 'webhook-secret' }, 'Secret'),
        h('div', { class: 'copy-row' }, input, reveal, copy)),
      err,
      h('div', { class: 'button-row' }, rotate));
  }

  // ------------------------------------------------------------ deliveries

  let deliveries = [];
  const open = new Set(); // delivery ids whose payload is shown; kept across refreshes
  let fastUntil = 0;
  let highlight = null;
  let pollTimer = 0;

  async function loadDeliveries() {
    window.clearTimeout(pollTimer);
    let res;
    try {
      res = await api('GET', `${path}/deliveries`);
    } catch (e) {
      if (!alive()) return;
      deliveriesBox.removeAttribute('aria-busy');
      inlineError(deliveryErr, e, 'Could not load the deliveries');
      return;
    }
    if (!alive()) return;
    deliveryErr.textContent = '';
    deliveriesBox.removeAttribute('aria-busy');
    deliveries = (res && res.data) || [];
    drawDeliveries();
    if (deliveries.some((d) => d.status === 'pending')) {
      pollTimer = later(loadDeliveries, Date.now() < fastUntil ? POLL_FAST_MS : POLL_SLOW_MS);
    }
  }

  function drawDeliveries() {
    if (!deliveries.length) {
      deliveriesBox.replaceChildren(h('p', { class: 'muted', id: 'no-deliveries' }, 'Nothing sent yet. \u201cSend test\u201d sends a ping event.'));
      return;
    }
    deliveriesBox.replaceChildren(h('div', { class: 'table-wrap' }, h('table', { id: 'delivery-table', class: 'deliveries' },
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'Event'), h('th', { scope: 'col' }, 'Status'), h('th', { scope: 'col', class: 'num' }, 'Attempts'),
        h('th', { scope: 'col' }, 'Last response'), h('th', { scope: 'col' }, 'Next attempt'), h('th', { scope: 'col' }, 'Created'),
        h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')))),
      deliveries.map(deliveryRows))));
  }

  /** One delivery: its row, and a row below with the payload, shown when expanded. */
  function deliveryRows(d) {
    const payloadId = `payload-${d.id}`;
    const expanded = open.has(d.id);
    const toggle = h('button', { type: 'button', class: 'button-ghost button-small', 'data-payload-toggle': '', 'aria-expanded': String(expanded), 'aria-controls': payloadId }, expanded ? 'Hide payload' : 'Payload');
    const detail = h('tr', { class: `payload-row${expanded ? '' : ' hidden'}`, id: payloadId },
      h('td', { colspan: '7' },
        d.last_error ? h('p', { class: 'small' }, h('strong', null, 'Last error: '), d.last_error) : null,
        h('p', { class: 'small muted' }, 'webhook-id ', h('code', null, d.id), ' (the same on every attempt) \u00b7 event ', h('code', null, d.event_id || '\u2014')),
        h('pre', { class: 'code-block payload', tabindex: '0', 'aria-label': `Payload of the ${d.type} delivery` }, h('code', null, prettyJson(d.payload)))));
    toggle.addEventListener('click', () => {
      const show = !open.has(d.id);
      if (show) open.add(d.id); else open.delete(d.id);
      detail.classList.toggle('hidden', !show);
      toggle.setAttribute('aria-expanded', String(show));
      toggle.textContent = show ? 'Hide payload' : 'Payload';
    });
    let retry = null;
    if (d.status === 'failed') {
      retry = h('button', { type: 'button', class: 'button-secondary button-small', 'data-retry': '', 'aria-label': `Retry the ${d.type} delivery` }, 'Retry');
      retry.addEventListener('click', () => busy(retry, async () => {
        deliveryErr.textContent = '';
        try {
          await api('POST', `${path}/deliveries/${encodeURIComponent(d.id)}/retry`);
        } catch (e) {
          inlineError(deliveryErr, e, 'Could not retry the delivery');
          return;
        }
        announce('Delivery queued again.');
        fastUntil = Date.now() + FAST_FOR_MS;
        await loadDeliveries();
      }));
    }
    const response = d.last_status_code ? `HTTP ${d.last_status_code}` : (d.last_error ? 'No answer' : '\u2014');
    const main = h('tr', { 'data-delivery': d.id, 'data-status': d.status, class: d.id === highlight ? 'highlight' : null },
      h('td', { class: 'mono' }, d.type),
      h('td', null, badge('status', d.status, DELIVERY_STATUS[d.status] || String(d.status))),
      h('td', { class: 'num', 'data-attempts': '' }, fmtNum(d.attempts)),
      h('td', { title: d.last_error || null }, response),
      h('td', null, d.status === 'pending' ? when(d.next_attempt_at) : '\u2014'),
      h('td', null, when(d.created_at)),
      h('td', null, h('div', { class: 'button-row row-actions' }, toggle, retry)));
    return h('tbody', { class: 'delivery' }, main, detail);
  }

  await loadDeliveries();
}

/** The payload as indented JSON; a payload stored as text is parsed first when it is JSON. */
function prettyJson(payload) {
  let value = payload;
  if (typeof value === 'string') {
    try { value = JSON.parse(value); } catch (e) { return value; }
  }
  return value === undefined || value === null ? '(no payload)' : JSON.stringify(value, null, 2);
}
