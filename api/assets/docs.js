// Renders the OpenAPI document as a readable reference; no external assets.
(async () => {
  const doc = await (await fetch('/v1/openapi.json')).json();
  const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  const md = (s) => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');
  document.getElementById('desc').innerHTML = md(doc.info.description) + ' OpenAPI ' + esc(doc.openapi) + ': <a href="/v1/openapi.json">/v1/openapi.json</a>';
  const byTag = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = (op.tags && op.tags[0]) || 'other';
      (byTag[tag] ||= []).push({ path, method, op });
    }
  }
  let html = '';
  for (const [tag, ops] of Object.entries(byTag)) {
    html += `<h2>${esc(tag)}</h2>`;
    for (const { path, method, op } of ops) {
      const auth = (op.security || []).map((s) => Object.keys(s)[0]).map((k) => (k === 'api_key' ? 'X-Project-Key' : 'Bearer session')).join(', ') || 'public';
      const body = op.requestBody ? `<div class="r">Body: ${md(op.requestBody.description)}</div>` : '';
      const res = Object.entries(op.responses || {}).map(([code, r]) => `<code>${esc(code)}</code> ${md(r.description)}`).join(' · ');
      html += `<div class="op"><span class="auth">${esc(auth)}</span><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code>
        <div>${md(op.summary || op.description || '')}</div>${body}<div class="r">${res}</div></div>`;
    }
  }
  document.getElementById('ops').innerHTML = html;
})();
