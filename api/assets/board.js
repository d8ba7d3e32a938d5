// Votes and comments on the feedback board. Vote buttons and comment forms are only rendered for
// signed-in visitors: the session cookie authenticates, and the browser's Origin header on these
// same-origin requests passes the CSRF check. Anyone can open an entry's comments.
(function () {
  'use strict';
  var msg = document.getElementById('board-msg');

  function say(text) {
    if (msg) msg.textContent = text;
  }

  function apply(entry, state) {
    var set = function (sel, value) {
      var el = entry.querySelector(sel);
      if (el) el.textContent = String(value);
    };
    set('[data-upvotes]', state.upvotes);
    set('[data-downvotes]', state.downvotes);
    set('[data-score]', state.score);
    entry.querySelectorAll('button[data-vote]').forEach(function (b) {
      var on = (b.dataset.vote === 'up' && state.user_vote === 1) || (b.dataset.vote === 'down' && state.user_vote === -1);
      b.setAttribute('aria-pressed', on ? 'true' : 'false');
      b.classList.toggle('is-active', on);
    });
  }

  document.addEventListener('click', function (ev) {
    var btn = ev.target instanceof Element ? ev.target.closest('button[data-vote]') : null;
    if (!btn || btn.disabled) return;
    var entry = btn.closest('[data-entry]');
    var id = btn.dataset.id;
    // Pressing an active button again withdraws the vote.
    var withdraw = btn.getAttribute('aria-pressed') === 'true';
    var url = '/v1/feedback/' + encodeURIComponent(id) + (withdraw ? '/vote' : btn.dataset.vote === 'up' ? '/upvote' : '/downvote');
    var buttons = entry ? entry.querySelectorAll('button[data-vote]') : [btn];
    buttons.forEach(function (b) { b.disabled = true; });
    say('');
    fetch(url, { method: withdraw ? 'DELETE' : 'POST', credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (res) {
        return res.json().catch(function () { return {}; }).then(function (body) {
          if (res.ok) {
            if (entry) apply(entry, body);
          } else if (res.status === 401) {
            say('Your session has expired. Sign in again to vote.');
          } else {
            say(body.detail || 'Your vote could not be saved. Please try again.');
          }
        });
      })
      .catch(function () { say('Could not reach the server. Check your connection and try again.'); })
      .finally(function () { buttons.forEach(function (b) { b.disabled = false; }); });
  });

  function commentItem(c) {
    var li = document.createElement('li');
    li.className = c.official ? 'comment is-official' : 'comment';
    var head = document.createElement('p');
    head.className = 'comment-head';
    var who = document.createElement('strong');
    who.textContent = (c.author && c.author.name) || 'Someone';
    head.appendChild(who);
    if (c.official) {
      var team = document.createElement('span');
      team.className = 'badge team';
      team.textContent = 'Team';
      head.append(' ', team);
    }
    // As the server writes dates: "24 Nov 2026".
    var when = document.createElement('time');
    when.dateTime = c.created_at;
    when.textContent = new Date(c.created_at).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
    head.append(' ', when);
    var text = document.createElement('p');
    text.className = 'comment-body';
    text.textContent = c.body;
    li.append(head, text);
    return li;
  }

  function commentCount(box, n) {
    var el = box.querySelector('[data-comment-count]');
    if (el) el.textContent = String(n);
  }

  function loadComments(box) {
    var list = box.querySelector('[data-comment-list]');
    var note = box.querySelector('[data-comment-msg]');
    box.dataset.loaded = 'loading';
    note.textContent = 'Loading comments…';
    fetch('/v1/feedback/' + encodeURIComponent(box.dataset.comments) + '/comments', {
      credentials: 'same-origin',
      headers: { Accept: 'application/json' }
    })
      .then(function (res) {
        if (!res.ok) throw new Error(String(res.status));
        return res.json();
      })
      .then(function (body) {
        var data = Array.isArray(body.data) ? body.data : [];
        list.textContent = '';
        data.forEach(function (c) { list.appendChild(commentItem(c)); });
        commentCount(box, data.length);
        note.textContent = data.length ? '' : 'No comments yet.';
        box.dataset.loaded = 'yes';
      })
      .catch(function () {
        note.textContent = 'Comments could not be loaded. Close and open them again to retry.';
        delete box.dataset.loaded;
      });
  }

  // `toggle` does not bubble, so it is caught on the way down; each list loads on first opening.
  document.addEventListener('toggle', function (ev) {
    var box = ev.target;
    if (box instanceof HTMLDetailsElement && box.open && box.dataset.comments && !box.dataset.loaded) {
      loadComments(box);
    }
  }, true);

  document.addEventListener('submit', function (ev) {
    var form = ev.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.commentForm) return;
    ev.preventDefault();
    var box = form.closest('[data-comments]');
    var list = box.querySelector('[data-comment-list]');
    var note = box.querySelector('[data-comment-msg]');
    var area = form.querySelector('textarea');
    var button = form.querySelector('button[type="submit"]');
    var text = area.value.trim();
    if (!text) {
      note.textContent = 'Write your comment first.';
      area.focus();
      return;
    }
    button.disabled = true;
    note.textContent = '';
    fetch('/v1/feedback/' + encodeURIComponent(form.dataset.commentForm) + '/comments', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ body: text })
    })
      .then(function (res) {
        return res.json().catch(function () { return {}; }).then(function (body) {
          if (res.status === 201) {
            list.appendChild(commentItem(body));
            area.value = '';
            var count = box.querySelector('[data-comment-count]');
            commentCount(box, Number(count ? count.textContent : 0) + 1);
          } else if (res.status === 401) {
            note.textContent = 'Your session has expired. Sign in again to comment.';
          } else if (res.status === 422 && Array.isArray(body.errors) && body.errors.length) {
            note.textContent = 'Your comment ' + body.errors[0].message + '.';
          } else {
            note.textContent = body.detail || 'Your comment could not be saved. Please try again.';
          }
        });
      })
      .catch(function () { note.textContent = 'Could not reach the server. Check your connection and try again.'; })
      .finally(function () { button.disabled = false; });
  });
})();
