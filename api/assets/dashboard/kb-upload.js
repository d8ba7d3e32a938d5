// Shipmate dashboard: putting documents into an index: text typed or pasted (optionally under an
// external id, which replaces that document on the next upload), or a file (.md, .txt, .html,
// .pdf) sent as multipart for the server to extract its text.

import { field, formErr, h, plural } from './dom.js';
import { ApiError, keyApi } from './api.js';
import { announce, busy, clearFormErrors, setFieldError, showFormError } from './ui.js';

const MAX_DOCUMENT_BYTES = 102400;
const MAX_FILE_BYTES = 10 * 1024 * 1024;
const FILE_TYPES = '.md,.markdown,.txt,.html,.htm,.pdf';

/** The metadata textarea's value as an object; `undefined` when empty, `null` when not an object. */
function readMetadata(textarea) {
  if (!textarea.value.trim()) return undefined;
  try {
    const meta = JSON.parse(textarea.value);
    return meta && typeof meta === 'object' && !Array.isArray(meta) ? meta : null;
  } catch (e) {
    return null;
  }
}

function metadataField(id) {
  const control = h('textarea', { name: 'metadata', rows: '3', class: 'mono', placeholder: '{"source": "faq"}', spellcheck: 'false' });
  return { control, el: field({ id, label: 'Metadata (JSON object, optional)', control, hint: 'Returned with every search result from this document, and what search filters match.' }) };
}

/** What a refused file upload means, in words, beside the server's own detail. */
function fileProblem(e) {
  if (!(e instanceof ApiError)) return null;
  if (e.status === 415) return `This type of file is not taken: upload a .md, .txt, .html or .pdf file. (${e.message})`;
  if (e.status === 413) return `Too large: files up to 10 MB, whose text is at most 100 KB. (${e.message})`;
  if (e.status === 422 && e.code === 'no_text') return `No text could be extracted from this file (a scanned PDF has only images). (${e.message})`;
  return null;
}

/** The text upload form; `uploaded(doc)` runs after each success. */
function textForm(project, base, uploaded) {
  const content = h('textarea', { name: 'content', rows: '8' });
  const meta = metadataField('doc-metadata');
  const externalId = h('input', { type: 'text', name: 'external_id', maxlength: '256', autocomplete: 'off' });
  const btn = h('button', { type: 'submit' }, 'Upload document');
  const form = h('form', { id: 'upload-document', novalidate: '' },
    field({ id: 'doc-content', label: 'Content', control: content, hint: 'Plain text or Markdown, up to 100 KB. It is split into chunks and embedded in the background.' }),
    meta.el,
    field({ id: 'doc-external', label: 'External ID (optional)', control: externalId, hint: 'Your own id for it: uploading again under the same id replaces the document, and unchanged chunks keep their embeddings.' }),
    formErr(),
    btn);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    const text = content.value;
    if (!text.trim()) { setFieldError(form, 'content', 'is required').focus(); return; }
    if (new TextEncoder().encode(text).length > MAX_DOCUMENT_BYTES) {
      setFieldError(form, 'content', 'must be at most 100 KB (102,400 bytes)').focus();
      return;
    }
    const body = { content: text };
    const metadata = readMetadata(meta.control);
    if (metadata === null) { setFieldError(form, 'metadata', 'must be a JSON object, for example {"source": "faq"}').focus(); return; }
    if (metadata) body.metadata = metadata;
    const ext = externalId.value.trim();
    await busy(btn, async () => {
      let doc;
      try {
        doc = ext
          ? await keyApi(project, 'PUT', `${base}/documents/by-external-id/${encodeURIComponent(ext)}`, { body })
          : await keyApi(project, 'POST', `${base}/documents`, { body });
      } catch (e) {
        showFormError(form, e);
        return;
      }
      content.value = '';
      meta.control.value = '';
      externalId.value = '';
      const reused = doc.chunks_reused ? `, ${plural(doc.chunks_reused, 'chunk', 'chunks')} reused` : '';
      announce(`Document uploaded: ${plural(doc.chunks_created, 'chunk', 'chunks')}${reused}, embedding now.`);
      await uploaded(doc);
    });
  });
  return form;
}

/** The file upload form (multipart, field `file`). */
function fileForm(project, base, uploaded) {
  const file = h('input', { type: 'file', name: 'file', accept: FILE_TYPES });
  const meta = metadataField('file-metadata');
  const btn = h('button', { type: 'submit' }, 'Upload file');
  const form = h('form', { id: 'upload-file', novalidate: '' },
    field({ id: 'doc-file', label: 'File', control: file, hint: 'Markdown, text, HTML or PDF, up to 10 MB; the text found in it is indexed (at most 100 KB).' }),
    meta.el,
    formErr(),
    btn);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    const chosen = file.files && file.files[0];
    if (!chosen) { setFieldError(form, 'file', 'Choose a file to upload.').focus(); return; }
    if (chosen.size > MAX_FILE_BYTES) { setFieldError(form, 'file', 'Too large: files up to 10 MB.').focus(); return; }
    const metadata = readMetadata(meta.control);
    if (metadata === null) { setFieldError(form, 'metadata', 'must be a JSON object, for example {"source": "faq"}').focus(); return; }
    const data = new FormData();
    // The part's file name says how to read it and becomes the document's metadata `filename`.
    data.append('file', chosen, chosen.name);
    if (metadata) data.append('metadata', JSON.stringify(metadata));
    await busy(btn, async () => {
      let doc;
      try {
        doc = await keyApi(project, 'POST', `${base}/documents/file`, { form: data });
      } catch (e) {
        const words = fileProblem(e);
        if (words) setFieldError(form, 'file', words).focus();
        else showFormError(form, e);
        return;
      }
      form.reset();
      announce(`${chosen.name} uploaded: ${plural(doc.chunks_created, 'chunk', 'chunks')}, embedding now.`);
      await uploaded(doc);
    });
  });
  return form;
}

/** The upload card of an index: text and file forms; `uploaded(doc)` refreshes the documents. */
export function uploadCard(project, index, uploaded) {
  const base = `/v1/indexes/${encodeURIComponent(index.id)}`;
  return h('section', { class: 'card', 'aria-labelledby': 'upload-title' },
    h('h2', { id: 'upload-title' }, 'Upload a document'),
    textForm(project, base, uploaded),
    h('h3', { id: 'upload-file-title' }, 'Or upload a file'),
    fileForm(project, base, uploaded));
}
