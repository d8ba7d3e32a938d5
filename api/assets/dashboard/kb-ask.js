// Shipmate dashboard: an index's ask box. The question is answered by the instance's chat model
// from the index's best chunks, written out as it streams in, then the chunks it cites as [n].

import { field, formErr, h, shortId } from './dom.js';
import { keyStream, serverSentEvents, ApiError } from './api.js';
import { announce, busy, clearFormErrors, showFormError } from './ui.js';
import { projectPath } from './router.js';
import { linkedFeedback } from './kb-search.js';

function citationItem(project, index, c) {
  const meta = c.metadata || {};
  const name = meta.path || meta.filename || meta.title || shortId(c.document_id);
  const link = h('a', { href: projectPath(project, 'knowledge', index.id, c.document_id), 'data-nav': '', title: c.document_id }, name);
  return h('li', { class: 'result' },
    h('div', { class: 'result-head' }, h('span', null, link), h('span', { class: 'muted small' }, `chunk ${c.chunk_index}`)),
    h('p', { class: 'result-text' }, c.chunk_content),
    linkedFeedback(c.feedback));
}

/** The ask card for `index`; `alive()` says whether the screen is still shown. */
export function askCard(project, index, alive) {
  const path = `/v1/indexes/${encodeURIComponent(index.id)}/answer`;
  const question = h('input', { type: 'text', name: 'question', autocomplete: 'off', maxlength: '2000', placeholder: 'How do I reset my password?' });
  const askBtn = h('button', { type: 'submit' }, 'Ask');
  const answer = h('p', { id: 'ask-answer', class: 'answer', 'aria-live': 'polite' });
  const sources = h('div', { id: 'ask-sources' });
  const form = h('form', { id: 'ask-form', novalidate: '', 'aria-label': `Ask ${index.name}` },
    field({ id: 'ask-question', label: 'Question', control: question }),
    formErr(),
    askBtn);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    answer.textContent = '';
    sources.replaceChildren();
    await busy(askBtn, async () => {
      answer.setAttribute('aria-busy', 'true');
      try {
        const res = await keyStream(project, path, { question: question.value });
        for await (const { event, data } of serverSentEvents(res)) {
          if (!alive()) return;
          if (event === 'delta') answer.append(data.text);
          else if (event === 'error') throw new ApiError(data.status || 502, data, false);
          else if (event === 'done') {
            answer.textContent = data.answer;
            const cited = data.citations || [];
            if (cited.length) {
              sources.replaceChildren(h('h3', null, 'Sources'),
                h('ol', { class: 'results', id: 'ask-citations' }, cited.map((c) => citationItem(project, index, c))));
            }
            announce(`Answered, citing ${cited.length} of the index's chunks.`);
          }
        }
      } catch (e) {
        if (alive()) showFormError(form, e);
      } finally {
        answer.removeAttribute('aria-busy');
      }
    });
  });
  return h('section', { class: 'card', 'aria-labelledby': 'ask-title' },
    h('h2', { id: 'ask-title' }, 'Ask'),
    h('p', { class: 'hint' }, 'Answered by the instance\u2019s chat model from this index\u2019s best chunks, each cited as [n].'),
    form, answer, sources);
}
