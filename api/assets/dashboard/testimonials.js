// Shipmate dashboard: a project's testimonials with their counts, paged: approve, reject or delete each.

import { $, badge, field, fmtNum, h, isHttpUrl, options, stat, statusLabel, timeEl } from './dom.js';
import { allPages, api, localPage, q } from './api.js';
import { announce, busy, confirmDialog, pageHead, pager, setMain, setTitle, showError } from './ui.js';

let statusFilter = ''; // kept while the dashboard is open
const PER_PAGE = 50;

function stars(rating) {
  const n = Math.max(0, Math.min(5, Math.round(Number(rating) || 0)));
  return h('span', { class: 'stars', role: 'img', 'aria-label': `${n} out of 5 stars` },
    '\u2605'.repeat(n), h('span', { class: 'off' }, '\u2605'.repeat(5 - n)));
}

export async function screenTestimonials(ctx) {
  const { project, alive } = ctx;
  setTitle('Testimonials', project.name);
  const statsBox = h('div', { class: 'stats', id: 'testimonial-stats' });
  const listBox = h('div');
  const pagerBox = h('div');
  let page = 1;
  const showSel = h('select', { name: 'show', value: statusFilter },
    options([['', 'All'], ['pending', 'Pending'], ['approved', 'Approved'], ['rejected', 'Rejected']], statusFilter));
  showSel.addEventListener('change', async () => {
    statusFilter = showSel.value;
    page = 1;
    if (await load()) draw();
  });
  const filters = h('form', { class: 'card filters', role: 'search', 'aria-label': 'Filter testimonials' },
    field({ id: 'tm-filter', label: 'Show', control: showSel }));
  filters.addEventListener('submit', (ev) => ev.preventDefault());

  setMain(
    pageHead('Testimonials', 'Only approved testimonials are returned to your site.', project,
      h('a', { class: 'button button-secondary', href: `/t/${project.slug}`, target: '_blank', rel: 'noopener' }, 'Open submission form')),
    statsBox, filters, listBox, pagerBox);

  let res = { data: [], total: 0 };

  function drawStats(s) {
    const avg = typeof s.average_rating === 'number' ? `${s.average_rating.toFixed(1)} \u2605` : '\u2014';
    statsBox.replaceChildren(
      stat('Total', fmtNum(s.total), 'total'),
      stat('Pending', fmtNum(s.pending), 'pending'),
      stat('Approved', fmtNum(s.approved), 'approved'),
      stat('Rejected', fmtNum(s.rejected), 'rejected'),
      stat('Average rating (approved)', avg, 'average_rating'));
  }

  /**
   * The page on display and the counts. The API pages every testimonial but filters none by
   * status, so a filtered view reads them all and pages them here.
   */
  async function fetchPage() {
    const path = '/v1/testimonials/all';
    if (!statusFilter) return api('GET', `${path}?${q({ project_id: project.id, page, per_page: PER_PAGE })}`);
    const [counts, all] = await Promise.all([
      api('GET', `${path}?${q({ project_id: project.id, per_page: 1 })}`),
      allPages(path, { project_id: project.id }),
    ]);
    return { ...localPage(all.filter((t) => t.status === statusFilter), page, PER_PAGE), stats: counts.stats };
  }

  async function load() {
    try {
      const next = await fetchPage();
      if (!alive()) return false;
      // A page emptied by deletions: step back to the last page that has testimonials.
      if (!next.data.length && page > 1 && next.total > 0) {
        page = Math.ceil(next.total / next.per_page);
        return load();
      }
      res = next;
      drawStats(res.stats || {});
      return true;
    } catch (e) {
      if (alive()) showError(e, 'Could not load testimonials');
      return false;
    }
  }

  function draw() {
    pagerBox.replaceChildren(pager(res, ['testimonial', 'testimonials'], async (p) => {
      page = p;
      if (await load()) { draw(); $('h1').focus(); }
    }));
    if (!res.data.length) {
      listBox.replaceChildren(h('div', { class: 'card empty' }, h('p', null,
        statusFilter ? 'No testimonials with this status.' : 'No testimonials yet. Share your submission form to collect some.')));
      return;
    }
    listBox.replaceChildren(h('ul', { class: 'records', id: 'testimonial-list' }, res.data.map(item)));
  }

  function item(t) {
    const approve = h('button', { type: 'button', class: 'button-small', disabled: t.status === 'approved', 'data-action': 'approve' }, 'Approve');
    const reject = h('button', { type: 'button', class: 'button-secondary button-small', disabled: t.status === 'rejected', 'data-action': 'reject' }, 'Reject');
    const del = h('button', { type: 'button', class: 'button-danger-quiet button-small', 'data-action': 'delete' }, 'Delete');
    for (const [b, verb] of [[approve, 'Approve'], [reject, 'Reject'], [del, 'Delete']]) {
      b.setAttribute('aria-label', `${verb} the testimonial from ${t.author_name}`);
    }
    const li = h('li', { class: 'card record', 'data-testimonial': t.id },
      h('div', { class: 'record-main' },
        h('h2', { class: 'record-title' }, t.author_name, t.author_title ? h('span', { class: 'muted small' }, ` \u00b7 ${t.author_title}`) : null),
        h('p', { class: 'meta' }, stars(t.rating), badge('status', t.status, statusLabel(t.status)), timeEl(t.created_at)),
        h('p', { class: 'record-text' }, t.content),
        h('p', { class: 'meta' },
          t.author_email ? h('a', { href: `mailto:${t.author_email}` }, t.author_email) : null,
          isHttpUrl(t.tweet_url) ? h('a', { href: t.tweet_url, target: '_blank', rel: 'noopener noreferrer nofollow' }, 'Tweet') : null)),
      h('div', { class: 'record-side' }, approve, reject, del));

    const moderate = async (status, button) => {
      await busy(button, async () => {
        try {
          await api('PATCH', `/v1/testimonials/${encodeURIComponent(t.id)}?${q({ project_id: project.id })}`, { body: { status } });
        } catch (e) {
          showError(e, 'Could not update the testimonial');
          return;
        }
        await load();
        if (!alive()) return;
        draw();
        announce(`Testimonial from ${t.author_name} ${status}.`);
        const again = $(`[data-testimonial="${CSS.escape(t.id)}"] button:not(:disabled)`);
        (again || $('h1')).focus();
      });
    };
    approve.addEventListener('click', () => moderate('approved', approve));
    reject.addEventListener('click', () => moderate('rejected', reject));
    del.addEventListener('click', async () => {
      const ok = await confirmDialog({ title: 'Delete this testimonial?', text: `The testimonial from ${t.author_name} will be deleted. This cannot be undone.`, ok: 'Delete' });
      if (!ok) return;
      await busy(del, async () => {
        try {
          await api('DELETE', `/v1/testimonials/${encodeURIComponent(t.id)}?${q({ project_id: project.id })}`);
        } catch (e) {
          showError(e, 'Could not delete the testimonial');
          return;
        }
        await load();
        if (!alive()) return;
        draw();
        announce(`Deleted the testimonial from ${t.author_name}.`);
        $('h1').focus();
      });
    });
    return li;
  }

  statsBox.append(h('p', { class: 'loading' }, 'Loading\u2026'));
  if (await load()) draw();
}
