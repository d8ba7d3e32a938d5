// The board's submission form: sends JSON to the API and shows its answer in place. While the
// title is typed it lists entries close in meaning ("is this already asked?"), so people vote
// instead of filing duplicates; that hint is a nicety and fails silently.
(function () {
  'use strict';
  var section = document.getElementById('submit');
  var form = document.getElementById('feedback-form');
  if (!section || !form) return;
  // Hidden in the page itself: without this script the form could not send anything.
  section.classList.remove('hidden');

  var slug = form.dataset.slug;
  // On a board's own page (`/f/:slug/b/:board`) entries go to that board and hints come from it.
  var board = form.dataset.board || '';
  var base = '/v1/feedback/by-project/' + encodeURIComponent(slug);
  var formErr = document.getElementById('fb-err-form');
  var done = document.getElementById('submit-done');
  var button = form.querySelector('button[type="submit"]');
  var title = form.elements.namedItem('title');
  var hint = document.getElementById('similar');
  var hintList = document.getElementById('similar-list');
  var FIELDS = ['title', 'type', 'description', 'submitter_email', 'website'];
  var OPTIONAL = ['description', 'submitter_email'];

  function capitalise(s) {
    return s ? s.charAt(0).toUpperCase() + s.slice(1) : s;
  }

  // Labels come from the filter form's options, so they are written once, in the page.
  function label(name, value) {
    var opt = document.querySelector('.filters select[name="' + name + '"] option[value="' + value + '"]');
    return opt ? opt.textContent : value;
  }

  function clearErrors() {
    form.querySelectorAll('.err').forEach(function (el) { el.textContent = ''; });
    form.querySelectorAll('[aria-invalid]').forEach(function (el) { el.removeAttribute('aria-invalid'); });
  }

  function showError(field, message) {
    var el = document.getElementById('fb-err-' + field);
    if (!el) {
      el = formErr;
      message = field + ' ' + message;
    }
    el.textContent = el.textContent ? el.textContent + ' ' + message : capitalise(message);
    form.querySelectorAll('[name="' + field + '"]').forEach(function (input) {
      input.setAttribute('aria-invalid', 'true');
    });
  }

  function payload() {
    var data = new FormData(form);
    var body = {};
    FIELDS.forEach(function (name) {
      var v = data.get(name);
      if (typeof v !== 'string') return;
      v = v.trim();
      if (v || OPTIONAL.indexOf(name) < 0) body[name] = v;
    });
    if (board) body.board = board;
    return body;
  }

  function span(className, text) {
    var el = document.createElement('span');
    el.className = className;
    el.textContent = text;
    return el;
  }

  // The new entry at the top of the list, as the server renders entries (without votes and
  // comments, which come with the next page load).
  function prepend(e) {
    var list = document.getElementById('entries');
    if (!list) return;
    var li = document.createElement('li');
    li.className = 'card entry';
    li.id = 'entry-' + e.id;
    li.dataset.entry = e.id;
    var tally = document.createElement('div');
    tally.className = 'tally';
    var score = span('score', String(e.score));
    score.setAttribute('data-score', '');
    tally.appendChild(score);
    var bodyEl = document.createElement('div');
    bodyEl.className = 'entry-body';
    var h = document.createElement('h2');
    h.className = 'entry-title';
    h.textContent = e.title;
    bodyEl.appendChild(h);
    if (e.description) {
      var p = document.createElement('p');
      p.className = 'desc';
      p.textContent = e.description;
      bodyEl.appendChild(p);
    }
    var meta = document.createElement('p');
    meta.className = 'meta';
    meta.append(span('label type-' + e.type, label('type', e.type)), ' ', span('badge status-' + e.status, label('status', e.status)));
    bodyEl.appendChild(meta);
    li.append(tally, bodyEl);
    list.insertBefore(li, list.firstChild);
    document.querySelectorAll('.empty').forEach(function (el) { el.remove(); });
    var count = document.getElementById('entry-count');
    if (!count) return;
    count.textContent = String(Number(count.textContent) + 1);
    // The noun follows the count in the same text node; only "1 entry" changes it.
    var rest = count.nextSibling;
    if (rest && rest.nodeType === Node.TEXT_NODE) rest.textContent = rest.textContent.replace(/^ entry\b/, ' entries');
  }

  function hideHint() {
    hint.classList.add('hidden');
    hintList.textContent = '';
  }

  function showHint(items) {
    hintList.textContent = '';
    if (!items.length) return hideHint();
    items.slice(0, 5).forEach(function (e) {
      var li = document.createElement('li');
      var a = document.createElement('a');
      // On this page, jump to it; elsewhere, the board filtered to its type and status finds it.
      a.href = document.getElementById('entry-' + e.id)
        ? '#entry-' + e.id
        : '/f/' + encodeURIComponent(slug) + '?type=' + encodeURIComponent(e.type) + '&status=' + encodeURIComponent(e.status) + '#entry-' + e.id;
      a.textContent = e.title;
      var votes = e.score === 1 ? ' vote' : ' votes';
      li.append(a, span('muted', ' · ' + label('status', e.status) + ' · ' + e.score + votes));
      hintList.appendChild(li);
    });
    hint.classList.remove('hidden');
  }

  var timer = null;
  var pending = null;
  var asked = '';

  function suggest() {
    var q = title.value.trim();
    if (q.length < 3) {
      asked = '';
      if (pending) pending.abort();
      return hideHint();
    }
    if (q === asked) return;
    asked = q;
    if (pending) pending.abort();
    var ctrl = new AbortController();
    pending = ctrl;
    fetch(base + '/similar?q=' + encodeURIComponent(q) + (board ? '&board=' + encodeURIComponent(board) : ''), {
      credentials: 'same-origin',
      headers: { Accept: 'application/json' },
      signal: ctrl.signal
    })
      .then(function (res) {
        if (!res.ok) throw new Error(String(res.status));
        return res.json();
      })
      .then(function (body) {
        if (pending === ctrl) showHint(Array.isArray(body.data) ? body.data : []);
      })
      .catch(function () {
        // An older request aborted by a newer one changes nothing; any other failure hides the hint.
        if (pending === ctrl) hideHint();
      });
  }

  title.addEventListener('input', function () {
    clearTimeout(timer);
    timer = setTimeout(suggest, 300);
  });

  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    clearErrors();
    done.classList.add('hidden');
    button.disabled = true;
    fetch(base, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(payload())
    })
      .then(function (res) {
        return res.json().catch(function () { return {}; }).then(function (body) {
          if (res.status === 201) {
            form.reset();
            clearTimeout(timer);
            asked = '';
            hideHint();
            if (body.moderation === 'pending') {
              done.textContent = 'Thank you! Your submission awaits moderation: it will appear on the board once the team has reviewed it.';
            } else {
              done.textContent = 'Thank you! Your submission is on the board.';
              prepend(body);
            }
            done.classList.remove('hidden');
            done.focus();
          } else if (res.status === 422 && Array.isArray(body.errors) && body.errors.length) {
            body.errors.forEach(function (e) { showError(e.field, e.message); });
            var first = form.querySelector('[aria-invalid="true"]');
            if (first) first.focus();
          } else if (res.status === 429) {
            formErr.textContent = 'Too many submissions, try again later.';
          } else {
            formErr.textContent = body.detail || 'Something went wrong (' + res.status + '). Please try again.';
          }
        });
      })
      .catch(function () { formErr.textContent = 'Could not reach the server. Check your connection and try again.'; })
      .finally(function () { button.disabled = false; });
  });
})();
