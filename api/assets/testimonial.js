// The public testimonial form: sends JSON to the API and shows its answer in place.
(function () {
  'use strict';
  var form = document.getElementById('testimonial');
  var thanks = document.getElementById('thanks');
  if (!form) return;
  var formErr = document.getElementById('err-form');
  var button = form.querySelector('button[type="submit"]');
  var TEXT_FIELDS = ['author_name', 'author_email', 'author_title', 'content', 'tweet_url', 'website'];

  function clearErrors() {
    form.querySelectorAll('.err').forEach(function (el) { el.textContent = ''; });
    form.querySelectorAll('[aria-invalid]').forEach(function (el) { el.removeAttribute('aria-invalid'); });
  }

  function showError(field, message) {
    var el = document.getElementById('err-' + field);
    if (!el) {
      el = formErr;
      message = field + ' ' + message;
    }
    el.textContent = el.textContent ? el.textContent + ' ' + message : capitalise(message);
    form.querySelectorAll('[name="' + field + '"]').forEach(function (input) {
      input.setAttribute('aria-invalid', 'true');
    });
  }

  function capitalise(s) {
    return s ? s.charAt(0).toUpperCase() + s.slice(1) : s;
  }

  function payload() {
    var data = new FormData(form);
    var body = {};
    TEXT_FIELDS.forEach(function (name) {
      var v = data.get(name);
      body[name] = typeof v === 'string' ? v.trim() : '';
    });
    var rating = data.get('rating');
    if (rating) body.rating = Number(rating);
    return body;
  }

  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    clearErrors();
    button.disabled = true;
    fetch('/v1/testimonials/by-project/' + encodeURIComponent(form.dataset.slug), {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(payload())
    })
      .then(function (res) {
        return res.json().catch(function () { return {}; }).then(function (body) {
          if (res.status === 201) {
            form.classList.add('hidden');
            if (thanks) {
              thanks.classList.remove('hidden');
              thanks.focus();
            }
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
