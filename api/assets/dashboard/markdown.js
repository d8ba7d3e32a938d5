// Shipmate dashboard: the changelog editor's Markdown preview, a safe subset rendered in the browser.

import { isHttpUrl } from './dom.js';

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

/**
 * Headings, paragraphs, lists, fenced code, `code`, **bold**, *italics* and [links](https://...).
 * Every piece of source text is HTML-escaped before markup is added; links keep only http(s) URLs.
 */
export function renderMarkdown(src) {
  const lines = String(src || '').replace(/\u0000/g, '').replace(/\r\n?/g, '\n').split('\n');
  const out = [];
  let para = [];
  let list = null;
  const flushPara = () => {
    if (para.length) out.push(`<p>${para.map(inline).join('<br>')}</p>`);
    para = [];
  };
  const flushList = () => {
    if (list) out.push(`<${list.type}>${list.items.map((t) => `<li>${inline(t)}</li>`).join('')}</${list.type}>`);
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = line.match(/^\s*(`{3,}|~{3,})/);
    if (fence) {
      flushPara(); flushList();
      const code = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) code.push(lines[i++]);
      out.push(`<pre><code>${esc(code.join('\n'))}</code></pre>`);
      continue;
    }
    const heading = line.match(/^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/);
    if (heading) {
      flushPara(); flushList();
      const level = Math.min(6, heading[1].length + 2); // the page already has h1 and h2
      out.push(`<h${level}>${inline(heading[2])}</h${level}>`);
      continue;
    }
    const ul = line.match(/^\s*[-*+]\s+(.*)$/);
    const ol = ul ? null : line.match(/^\s*\d{1,9}[.)]\s+(.*)$/);
    if (ul || ol) {
      flushPara();
      const type = ul ? 'ul' : 'ol';
      if (list && list.type !== type) flushList();
      if (!list) list = { type, items: [] };
      list.items.push((ul || ol)[1]);
      continue;
    }
    if (!line.trim()) { flushPara(); flushList(); continue; }
    if (list && /^\s{2,}\S/.test(line)) {
      list.items[list.items.length - 1] += ` ${line.trim()}`;
      continue;
    }
    flushList();
    para.push(line.trim());
  }
  flushPara(); flushList();
  return out.join('\n');
}

function inline(text) {
  const stash = [];
  const keep = (html) => `\u0000${stash.push(html) - 1}\u0000`;
  let s = String(text);
  s = s.replace(/`([^`\n]+)`/g, (_, code) => keep(`<code>${esc(code)}</code>`));
  s = s.replace(/\[([^\]\n]+)\]\(\s*([^()\s]+)(?:\s+"[^"\n]*")?\s*\)/g, (_, label, url) => {
    const inner = emphasis(esc(label));
    if (isHttpUrl(url)) return keep(`<a href="${esc(url)}" rel="noopener noreferrer nofollow" target="_blank">${inner}</a>`);
    return keep(inner); // other schemes (javascript:, data:, relative) keep only their text
  });
  s = emphasis(esc(s));
  for (let k = 0; k < 3 && s.includes('\u0000'); k++) {
    s = s.replace(/\u0000(\d+)\u0000/g, (_, n) => stash[Number(n)] || '');
  }
  return s;
}

function emphasis(s) {
  return s
    .replace(/\*\*(?=\S)([^*]+?)\*\*/g, '<strong>$1</strong>')
    .replace(/__(?=\S)([^_]+?)__/g, '<strong>$1</strong>')
    .replace(/(^|[^\w*])\*(?=\S)([^*\n]+?)\*(?![\w*])/g, '$1<em>$2</em>')
    .replace(/(^|[^\w_])_(?=\S)([^_\n]+?)_(?![\w_])/g, '$1<em>$2</em>');
}
