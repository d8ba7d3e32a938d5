/*! Shipmate widgets: <script defer data-project="pk_..." data-api="https://api.example" src=".../sdk/widgets.js">
 then <div data-shipmate="feedback|changelog|testimonials"></div> anywhere (data-board="<slug>" posts feedback to one board). Shadow DOM, no framework, no build step.
 Only the publishable key and an end user's eu_ session (sessionStorage, from window.shipmate.identify(jwt)) are used.
 Themed by CSS custom properties: --shipmate-accent, --shipmate-accent-text, --shipmate-bg, --shipmate-text,
 --shipmate-muted, --shipmate-border, --shipmate-radius, --shipmate-font. */
(function (w, d) {
  var s = d.currentScript || d.querySelector('script[src*="widgets.js"][data-project]'), old = w.shipmate
  if (!s || old && old.v) return
  var key = s.getAttribute('data-project') || '', base = (s.getAttribute('data-api') || new URL(s.src).origin).replace(/\/+$/, '')
  var SK = 'shipmate:' + key + ':', project, listeners = []

  function st(area, k, v) {
    try {
      var a = w[area]
      if (v === void 0) return a.getItem(SK + k)
      v === null ? a.removeItem(SK + k) : a.setItem(SK + k, v)
    } catch (e) {}
  }
  function session() { try { return JSON.parse(st('sessionStorage', 'user')) } catch (e) {} }
  function call(method, path, body, auth) {
    var h = { Accept: 'application/json' }, u = session()
    if (auth) { if (u && u.token) h.Authorization = 'Bearer ' + u.token } else h['X-Project-Key'] = key
    if (body) h['Content-Type'] = 'application/json'
    return fetch(base + path, { method: method, headers: h, body: body && JSON.stringify(body) }).then(function (r) {
      return r.json().catch(function () { return {} }).then(function (j) {
        if (r.ok) return j
        if (r.status == 401 && auth) { st('sessionStorage', 'user', null); notify() }
        throw j
      })
    })
  }
  function proj() { return project || (project = call('GET', '/v1/project')) }
  function notify() { listeners.forEach(function (f) { f() }) }

  function el(tag, attrs, kids) {
    var e = d.createElement(tag)
    for (var k in attrs || {}) k == 'text' ? e.textContent = attrs[k] : k.slice(0, 2) == 'on' ? e.addEventListener(k.slice(2), attrs[k]) : e.setAttribute(k, attrs[k])
    ;(kids || []).forEach(function (c) { c && e.appendChild(c) })
    return e
  }
  function date(iso) { return new Date(iso).toLocaleDateString(void 0, { year: 'numeric', month: 'short', day: 'numeric' }) }
  function votes(n) { return n + (n == 1 ? ' vote' : ' votes') }
  function plain(md) { return String(md).replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[#*_`>]+/g, '').trim() }

  var CSS = ':host{--a:var(--shipmate-accent,#4f46e5);--at:var(--shipmate-accent-text,#fff);--bg:var(--shipmate-bg,#fff);' +
    '--t:var(--shipmate-text,#111827);--m:var(--shipmate-muted,#6b7280);--b:var(--shipmate-border,#e5e7eb);--r:var(--shipmate-radius,8px);' +
    'font:14px/1.45 var(--shipmate-font,system-ui,-apple-system,"Segoe UI",sans-serif);color:var(--t);position:relative;display:inline-block}' +
    '*{box-sizing:border-box;font:inherit}[hidden]{display:none!important}' +
    'button{cursor:pointer;border:1px solid var(--b);border-radius:var(--r);background:var(--bg);color:var(--t);padding:6px 12px}' +
    'button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:2px solid var(--a);outline-offset:2px}' +
    '.go{background:var(--a);border-color:var(--a);color:var(--at);font-weight:600}' +
    '.badge{display:inline-block;min-width:18px;margin-left:6px;padding:0 5px;border-radius:9px;background:var(--a);color:var(--at);font-size:12px;text-align:center}' +
    '.panel{position:absolute;z-index:2147483000;top:100%;left:0;margin-top:8px;width:min(360px,92vw);max-height:70vh;overflow:auto;' +
    'background:var(--bg);border:1px solid var(--b);border-radius:var(--r);box-shadow:0 10px 30px rgba(0,0,0,.15);padding:14px}' +
    ':host([data-align=right]) .panel{left:auto;right:0}' +
    'h2{margin:0 0 10px;font-size:16px;font-weight:600}label{display:block;margin:0 0 10px;font-weight:500}' +
    'input,select,textarea{display:block;width:100%;margin-top:4px;padding:7px 9px;border:1px solid var(--b);border-radius:var(--r);background:var(--bg);color:var(--t)}' +
    'textarea{min-height:80px;resize:vertical}ul{list-style:none;margin:0;padding:0}li{padding:8px 0;border-top:1px solid var(--b)}' +
    '.muted,time,.tag{color:var(--m);font-size:12px}.tag{text-transform:uppercase;letter-spacing:.04em;margin-right:6px}' +
    '.hint li{display:flex;gap:8px;align-items:center;justify-content:space-between}.vote[aria-pressed=true],.imp [aria-pressed=true]{border-color:var(--a);color:var(--a)}.hint li{flex-wrap:wrap}.imp{flex-basis:100%;display:flex;gap:4px}.imp button{font-size:12px;padding:2px 6px}' +
    '.row{display:flex;gap:8px;justify-content:flex-end;margin-top:6px}p{margin:4px 0}.msg{margin:8px 0 0}.title{font-weight:600}'

  /** Styles a shadow root through a constructed sheet, which a host page's strict CSP (no
      'unsafe-inline') allows; a <style> element where browsers lack constructed sheets. */
  function styled(root, css) {
    try { var sh = new CSSStyleSheet(); sh.replaceSync(css); root.adoptedStyleSheets = [sh] } catch (e) { root.append(el('style', { text: css })) }
    return root
  }

  /** A shadow root with the styles, a trigger button and a panel it opens (Escape or a click outside closes). */
  function popover(host, label, title, onopen) {
    var root = host.attachShadow({ mode: 'open' }), panel = el('div', { class: 'panel', role: 'dialog', 'aria-label': title, hidden: '' }),
      btn = el('button', { type: 'button', part: 'button', 'aria-expanded': 'false', 'aria-haspopup': 'dialog' }, [d.createTextNode(label)])
    function toggle(open) {
      panel.hidden = !open
      btn.setAttribute('aria-expanded', open)
      if (open) { onopen(); var f = panel.querySelector('input,button,select,textarea,[tabindex]'); f && f.focus() }
    }
    btn.addEventListener('click', function () { toggle(panel.hidden) })
    root.addEventListener('keydown', function (e) { if (e.key == 'Escape' && !panel.hidden) { toggle(false); btn.focus() } })
    d.addEventListener('click', function (e) { if (!panel.hidden && e.composedPath().indexOf(host) < 0) toggle(false) })
    styled(root, CSS).append(btn, panel)
    return { root: root, btn: btn, panel: panel, close: function () { toggle(false); btn.focus() } }
  }

  var IMP = [['nice_to_have', 'Nice to have'], ['important', 'Important'], ['must_have', 'Must have']]

  function feedback(host) {
    var p = popover(host, host.getAttribute('data-label') || 'Feedback', 'Send feedback', function () {}), timer, asked = '',
      board = host.getAttribute('data-board'), on = board ? '&board=' + encodeURIComponent(board) : ''
    var title = el('input', { name: 'title', required: '', maxlength: '200', autocomplete: 'off' }),
      type = el('select', { name: 'type' }, [['feature', 'Feature request'], ['bug', 'Bug'], ['feedback', 'Feedback']].map(function (o) { return el('option', { value: o[0], text: o[1] }) })),
      desc = el('textarea', { name: 'description', maxlength: '5000' }), hint = el('div', { class: 'hint', 'aria-live': 'polite' }),
      who = el('p', { class: 'muted' }), msg = el('p', { class: 'msg', role: 'status' })
    var form = el('form', { novalidate: '' }, [el('h2', { text: 'Send feedback' }), el('label', { text: 'Title' }, [title]), hint,
      el('label', { text: 'Type' }, [type]), el('label', { text: 'Description' }, [desc]), who,
      el('div', { class: 'row' }, [el('button', { type: 'button', text: 'Cancel', onclick: p.close }), el('button', { type: 'submit', class: 'go', text: 'Send' })]), msg])
    p.panel.appendChild(form)
    function whoami() { var u = session(); who.textContent = u ? 'As ' + (u.user.name || 'you') : ''; asked = ''; similar() }
    listeners.push(whoami); whoami()
    function similar() {
      var q = title.value.trim().slice(0, 500)
      if (q.length < 3 || q == asked) return
      asked = q
      proj().then(function (pr) { return call('GET', '/v1/feedback/by-project/' + encodeURIComponent(pr.slug) + '/similar?q=' + encodeURIComponent(q) + on, null, session() ? 1 : 0) })
        .then(function (j) {
          if (q != asked) return
          hint.textContent = ''
          if (!j.data.length) return
          hint.append(el('p', { class: 'muted', text: 'Already asked?' }), el('ul', {}, j.data.map(function (e) {
            var li, n = el('span', { class: 'muted', text: votes(e.score) }), up = function (imp) {
              return call('POST', '/v1/feedback/' + e.id + '/upvote', imp && { importance: imp }, 1).catch(function (x) { msg.textContent = 'Could not vote.'; throw x })
            }, vote = session() && e.type == 'feature' && el('button', {
              type: 'button', class: 'vote', 'aria-pressed': 'false', 'aria-label': 'Upvote ' + e.title, text: '▲', onclick: function () {
                up().then(function (v) {
                  n.textContent = votes(v.score); vote.setAttribute('aria-pressed', v.user_vote > 0)
                  // Then how much it matters (Canny's and Featurebase's question): the vote stays, its weight changes.
                  if (!li.querySelector('.imp')) li.append(el('span', { class: 'imp', role: 'group', 'aria-label': 'How important is it?' }, IMP.map(function (o, i) {
                    var b = el('button', { type: 'button', 'data-importance': o[0], 'aria-pressed': !i + '', text: o[1], onclick: function () {
                      up(o[0]).then(function () { b.parentNode.querySelectorAll('button').forEach(function (x) { x.setAttribute('aria-pressed', x == b) }) })
                    } })
                    return b
                  })))
                })
              }
            })
            return li = el('li', { 'data-id': e.id }, [el('span', { text: e.title }), el('span', {}, [n, d.createTextNode(' '), vote])])
          })))
        }).catch(function () {})
    }
    title.addEventListener('input', function () { clearTimeout(timer); timer = setTimeout(similar, 300) })
    form.addEventListener('submit', function (e) {
      e.preventDefault()
      if (!title.value.trim()) { msg.textContent = 'A title, please.'; title.focus(); return }
      var body = { title: title.value.trim(), type: type.value }
      if (desc.value.trim()) body.description = desc.value.trim()
      if (board) body.board = board
      msg.textContent = 'Sending…'
      proj().then(function (pr) { return call('POST', '/v1/feedback/by-project/' + encodeURIComponent(pr.slug), body, session() ? 1 : 0) })
        .then(function (r) {
          form.reset(); hint.textContent = ''; asked = ''
          msg.textContent = r.moderation == 'pending' ? 'Thanks! It will appear once reviewed.' : 'Thanks for your feedback!'
        }, function (err) { msg.textContent = err && err.detail || 'Could not send; try again.' })
    })
  }

  function changelog(host) {
    var badge = el('span', { class: 'badge', hidden: '', 'aria-live': 'polite' }), list = el('ul'), entries = []
    var p = popover(host, host.getAttribute('data-label') || "What's new", "What's new", function () {
      if (entries[0]) st('localStorage', 'seen', entries[0].published_at)
      badge.hidden = true
    })
    p.btn.appendChild(badge)
    p.panel.append(el('h2', { text: "What's new" }), list)
    call('GET', '/v1/changelog?per_page=' + (+host.getAttribute('data-limit') || 10)).then(function (j) {
      entries = j.data
      var seen = st('localStorage', 'seen'), n = entries.filter(function (e) { return !seen || Date.parse(e.published_at) > Date.parse(seen) }).length
      badge.textContent = n; badge.hidden = !n || !p.panel.hidden
      if (!p.panel.hidden) st('localStorage', 'seen', entries[0] && entries[0].published_at)
      list.textContent = ''
      entries.forEach(function (e) {
        list.appendChild(el('li', { 'data-id': e.id }, [el('span', { class: 'tag', text: e.type }), el('time', { datetime: e.published_at, text: date(e.published_at) }),
          el('p', { text: e.title, class: 'title' }), el('p', { text: plain(e.content).slice(0, 280) })]))
      })
      if (!entries.length) list.appendChild(el('li', { class: 'muted', text: 'Nothing yet.' }))
    }).catch(function () { list.textContent = 'Could not load.' })
  }

  /** Every approved testimonial (up to 1,000), for an honest average. */
  function pages(n, acc) {
    return call('GET', '/v1/testimonials?per_page=100&page=' + n).then(function (j) {
      acc = acc.concat(j.data)
      return j.data.length && acc.length < j.total && n < 10 ? pages(n + 1, acc) : acc
    })
  }
  function testimonials(host) {
    var root = host.attachShadow({ mode: 'open' }), grid = el('div', { class: 'grid' })
    styled(root, CSS + ':host{display:block}.grid{display:grid;gap:12px;grid-template-columns:repeat(auto-fill,minmax(240px,1fr))}' +
      'figure{margin:0;padding:14px;border:1px solid var(--b);border-radius:var(--r);background:var(--bg)}.stars{color:var(--a);letter-spacing:2px}blockquote{margin:6px 0}').append(grid)
    Promise.all([pages(1, []), proj()]).then(function (r) {
      var all = r[0], sum = 0, limit = +host.getAttribute('data-limit') || 6
      all.forEach(function (t, i) {
        sum += t.rating
        if (i < limit) grid.appendChild(el('figure', { 'data-id': t.id }, [
          el('div', { class: 'stars', role: 'img', 'aria-label': t.rating + ' out of 5', text: '★★★★★☆☆☆☆☆'.substr(5 - t.rating, 5) }),
          el('blockquote', { text: t.content }),
          el('figcaption', {}, [el('strong', { text: t.author_name }), t.author_title && el('span', { class: 'muted', text: ' · ' + t.author_title })])]))
      })
      if (!all.length || d.head.querySelector('script[data-shipmate-rating]')) return
      d.head.appendChild(el('script', { type: 'application/ld+json', 'data-shipmate-rating': '', text: JSON.stringify({
        '@context': 'https://schema.org', '@type': 'AggregateRating', itemReviewed: { '@type': 'Product', name: r[1].name },
        ratingValue: Math.round(sum / all.length * 100) / 100, reviewCount: all.length, bestRating: 5, worstRating: 1 }) }))
    }).catch(function () { grid.textContent = '' })
  }

  var kinds = { feedback: feedback, changelog: changelog, testimonials: testimonials }
  function mount() {
    d.querySelectorAll('[data-shipmate]').forEach(function (h) {
      var f = kinds[h.getAttribute('data-shipmate')]
      if (f && !h.shadowRoot) f(h)
    })
  }

  w.shipmate = {
    v: 1,
    /** Hands the customer's signed JWT to the API; the end-user session it returns votes and submits. */
    identify: function (jwt) {
      return call('POST', '/v1/auth/identify', { token: jwt }).then(function (r) {
        st('sessionStorage', 'user', JSON.stringify(r)); notify(); return r.user
      })
    },
    logout: function () { st('sessionStorage', 'user', null); notify() },
    user: function () { var u = session(); return u ? u.user : null },
    mount: mount
  }
  ;(old && old.q || []).forEach(function (a) { w.shipmate[a[0]] && w.shipmate[a[0]].apply(null, [].slice.call(a, 1)) })
  d.readyState == 'loading' ? d.addEventListener('DOMContentLoaded', mount) : mount()
})(window, document)
