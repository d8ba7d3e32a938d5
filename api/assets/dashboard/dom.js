// Shipmate dashboard: building the page. Every node is made with the DOM API and text goes in as
// text, so the strict CSP (no inline scripts or styles) holds and author text is never markup;
// plus the small formatters and form pieces every view uses.

const STATUS_LABELS = {
  new: 'New', planned: 'Planned', in_progress: 'In progress', done: 'Done', shipped: 'Shipped',
  dismissed: 'Dismissed', cancelled: 'Cancelled', pending: 'Pending', approved: 'Approved',
  rejected: 'Rejected', ready: 'Ready', failed: 'Failed',
};

export const $ = (sel, root = document) => root.querySelector(sel);

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

/** Creates an element. `attrs` keys: class, text, on<event>, boolean properties, else attributes. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  let value;
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k === 'value') value = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (['checked', 'disabled', 'selected', 'readOnly', 'required', 'multiple'].includes(k)) el[k] = Boolean(v);
    else if (k === 'style') throw new Error('inline styles are blocked by the CSP');
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  if (value !== undefined) el.value = value; // after children, so a <select> has its options
  return el;
}

const SVG_NS = 'http://www.w3.org/2000/svg';
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  }
  return append(el, children);
}

const numberFmt = new Intl.NumberFormat('en');
export const fmtNum = (n) => (typeof n === 'number' && Number.isFinite(n) ? numberFmt.format(n) : '0');

export function fmtDate(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
}

export function timeEl(iso) {
  return iso ? h('time', { datetime: iso, title: new Date(iso).toLocaleString() }, fmtDate(iso)) : null;
}

export function statusLabel(s) {
  return STATUS_LABELS[s] || String(s || '').replace(/_/g, ' ');
}

/** A class suffix from a known value; anything unexpected gets a neutral style. */
export function cls(value) {
  return /^[a-z_]+$/.test(String(value)) ? String(value) : 'other';
}

export function badge(kind, value, label) {
  return h('span', { class: `badge ${kind}-${cls(value)}` }, label);
}

export function plural(n, one, many) {
  return `${fmtNum(n)} ${n === 1 ? one : many}`;
}

export function capitalize(s) {
  s = String(s || '');
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

export function isHttpUrl(u) {
  return typeof u === 'string' && /^https?:\/\/[^\s]+$/i.test(u);
}

/** The tail of a UUID: v7 identifiers made close together share their leading (time) digits. */
export function shortId(id) {
  const s = String(id || '');
  return s.length > 8 ? `\u2026${s.slice(-8)}` : s;
}

let uid = 0;
export const nextId = (prefix) => `${prefix}-${++uid}`;

/** One figure of a stats row (testimonials, analytics); `text` for a value that is words, not a number. */
export function stat(label, value, key, text) {
  return h('div', { class: 'stat' },
    h('span', { class: 'stat-label' }, label),
    h('span', { class: `stat-value${text ? ' text' : ''}`, 'data-metric': key, title: text ? value : null }, value));
}

/** A labelled control with hint and error slots wired through aria-describedby. */
export function field({ id, label, control, hint, name, className }) {
  control.id = id;
  const fieldName = name || control.getAttribute('name') || id;
  if (!control.getAttribute('name')) control.setAttribute('name', fieldName);
  const hintId = hint ? `${id}-hint` : null;
  const errId = `${id}-err`;
  control.setAttribute('aria-describedby', [hintId, errId].filter(Boolean).join(' '));
  return h('div', { class: `field${className ? ` ${className}` : ''}` },
    h('label', { for: id }, label),
    control,
    hint ? h('p', { class: 'hint', id: hintId }, hint) : null,
    h('p', { class: 'field-err', id: errId, 'data-err-for': fieldName, 'data-label': typeof label === 'string' ? label.replace(/\s*\(.*\)$/, '') : '' }));
}

export function options(pairs, current) {
  return pairs.map(([value, label]) => h('option', { value, selected: value === current }, label));
}

/** A button that shows and hides `panel`, calling `open` each time it is shown. */
export function disclosure(label, panel, open, attrs = {}) {
  panel.classList.add('hidden');
  const button = h('button', { type: 'button', class: 'button-secondary button-small', 'aria-expanded': 'false', 'aria-controls': panel.id, ...attrs }, label);
  button.addEventListener('click', () => {
    const show = panel.classList.contains('hidden');
    panel.classList.toggle('hidden', !show);
    button.setAttribute('aria-expanded', String(show));
    if (show) open();
  });
  return button;
}

export function formErr() {
  return h('p', { class: 'form-err', role: 'alert' });
}

/**
 * The notice shown wherever the dashboard would otherwise promise an email (invitations, notifications,
 * the admin page) while the server has no SMTP settings; `extra` says what to do meanwhile.
 */
export function emailOffNotice(id, extra) {
  return h('div', { class: 'notice email-off', id, role: 'note' },
    h('p', null, h('strong', null, 'Email is not configured: set SHIPMATE_SMTP_URL and SHIPMATE_MAIL_FROM'), ' on the server to send email.'),
    extra ? h('p', null, extra) : null);
}
