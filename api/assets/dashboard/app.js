// Shipmate dashboard: a dependency-free single-page app served at /dashboard, written as native ES
// modules (no build step). This entry module holds the route table and starts the shell (router.js);
// each view is a module of its own, built on dom.js (making nodes), api.js (the /v1 client), ui.js
// (the page frame, errors, toasts) and state.js. The page runs under a strict CSP (no inline scripts
// or styles): every node is built with the DOM API and text goes in as text; the one HTML string
// inserted is the changelog preview, rendered and sanitised by the server.

import { start } from './router.js';
import { screenProjects } from './projects.js';
import { screenFeedback } from './feedback.js';
import { screenTestimonials } from './testimonials.js';
import { screenChangelog } from './changelog.js';
import { screenKnowledge } from './knowledge.js';
import { screenAnalytics } from './analytics.js';
import { screenMembers } from './members.js';
import { screenWebhooks } from './webhooks.js';
import { screenSettings } from './settings.js';
import { screenAccount } from './account.js';
import { screenAdmin } from './admin.js';
import { loginPage, registerPage, setupPage, resetPage } from './auth.js';
import { invitePage } from './invite.js';
import { verifyPage } from './verify.js';

start({
  home: screenProjects,
  // A project's sections in navigation order; the first is where a project opens.
  sections: [
    { id: 'feedback', label: 'Feedback', view: screenFeedback },
    { id: 'testimonials', label: 'Testimonials', view: screenTestimonials },
    { id: 'changelog', label: 'Changelog', view: screenChangelog },
    { id: 'knowledge', label: 'Knowledge base', view: screenKnowledge },
    { id: 'analytics', label: 'Analytics', view: screenAnalytics },
    { id: 'members', label: 'Members', view: screenMembers },
    { id: 'webhooks', label: 'Webhooks', view: screenWebhooks, roles: ['owner', 'admin'] },
    { id: 'settings', label: 'Settings', view: screenSettings },
  ],
  pages: { account: screenAccount, admin: screenAdmin },
  publicPages: [
    [/^\/login\/?$/, loginPage],
    [/^\/register\/?$/, registerPage],
    [/^\/setup\/?$/, setupPage],
    [/^\/reset-password\/?$/, resetPage],
    [/^\/verify-email\/?$/, verifyPage],
    [/^\/invite\/([^/]+)\/?$/, invitePage],
  ],
});
