// Shipmate dashboard: the project list, at /dashboard, and the form that creates a project.

import { badge, capitalize, field, formErr, h, timeEl } from './dom.js';
import { api } from './api.js';
import { state } from './state.js';
import { announce, busy, clearFormErrors, pageHead, setMain, setTitle, showError, showFormError } from './ui.js';
import { navigate, projectPath } from './router.js';

function slugify(s) {
  return String(s).toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 48).replace(/-+$/g, '');
}

export async function screenProjects({ alive }) {
  setTitle('Projects');
  const listBox = h('div', { 'aria-busy': 'true' }, h('p', { class: 'loading' }, 'Loading projects\u2026'));
  setMain(
    pageHead('Projects', 'Each project has its own API key, feedback board, testimonials, changelog, knowledge base and analytics.'),
    h('div', { class: 'grid-2' },
      h('section', { 'aria-labelledby': 'projects-title' }, h('h2', { id: 'projects-title' }, 'Your projects'), listBox),
      createProjectCard()),
  );
  let projects;
  try {
    projects = (await api('GET', '/v1/projects')).data || [];
  } catch (e) {
    if (!alive()) return;
    listBox.replaceChildren(h('p', { class: 'muted' }, 'Projects could not be loaded.'));
    showError(e, 'Could not load your projects');
    return;
  }
  if (!alive()) return;
  listBox.removeAttribute('aria-busy');
  for (const p of projects) state.projects.set(p.id, p);
  if (!projects.length) {
    listBox.replaceChildren(h('div', { class: 'card empty' }, h('p', null, 'No projects yet. Create your first one to get an API key.')));
    return;
  }
  listBox.replaceChildren(h('ul', { class: 'records', id: 'project-list' }, projects.map((p) => h('li', { class: 'card project-card', 'data-project': p.id },
    h('div', { class: 'record-main' },
      h('a', { class: 'project-link', href: projectPath(p, 'feedback'), 'data-nav': '' }, p.name),
      h('p', { class: 'meta' }, h('span', { class: 'mono' }, `/${p.slug}`), p.role && p.role !== 'owner' ? badge('role', p.role, capitalize(p.role)) : null,
        p.created_at ? h('span', null, 'Created ', timeEl(p.created_at)) : null)),
    h('a', { class: 'button button-secondary button-small', href: projectPath(p, 'settings'), 'data-nav': '', 'aria-label': `Settings of ${p.name}` }, 'Settings')))));
}

function createProjectCard() {
  const name = h('input', { type: 'text', name: 'name', autocomplete: 'off', maxlength: '100' });
  const slug = h('input', { type: 'text', name: 'slug', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off', maxlength: '48' });
  let slugEdited = false;
  name.addEventListener('input', () => { if (!slugEdited) slug.value = slugify(name.value); });
  slug.addEventListener('input', () => { slugEdited = slug.value.trim() !== ''; });
  const submit = h('button', { type: 'submit' }, 'Create project');
  const form = h('form', { id: 'create-project', novalidate: '' },
    field({ id: 'project-name', label: 'Project name', control: name }),
    field({ id: 'project-slug', label: 'Slug', control: slug, hint: 'Used in public addresses like /f/your-slug: 3 to 48 lowercase letters, digits and hyphens.' }),
    formErr(),
    submit);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clearFormErrors(form);
    await busy(submit, async () => {
      let project;
      try {
        project = await api('POST', '/v1/projects', { body: { name: name.value, slug: slug.value.trim() } });
      } catch (e) {
        showFormError(form, e, { conflictField: 'slug' });
        return;
      }
      state.projects.set(project.id, project);
      announce(`Project \u201c${project.name}\u201d created.`);
      navigate(projectPath(project, 'settings'));
    });
  });
  return h('section', { class: 'card', 'aria-labelledby': 'create-project-title' },
    h('h2', { id: 'create-project-title' }, 'Create a project'),
    form);
}
