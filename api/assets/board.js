// Vote buttons of the feedback board (loaded only for signed-in visitors). The session cookie
// authenticates; the browser's Origin header on these same-origin requests passes the CSRF check.
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
})();
