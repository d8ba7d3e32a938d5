// Headless Chromium tests of accounts and teams in the dashboard: the first-run setup link, the
// instance admin page, invitations and the Members page, /login with email and password, and the
// account page's sessions. Run through tests/browser/run.sh (which passes the api's log file in
// SHIPMATE_API_LOG, where the first-run setup link is printed), or set SHIPMATE_API_URL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';

import { API, SHOTS, PHONE, useBrowser, api, login } from './support.mjs';

const DESKTOP = { width: 1280, height: 800 };
const browser = useBrowser();
const tag = randomBytes(4).toString('hex');
const PASSWORD = `correct horse ${tag}`;

// Made by the invitation test, used by the sign-in and account tests after it.
const member = { email: `member-${tag}@example.com`, name: 'Mia Member', project: null };

async function shot(page, name) {
  await page.waitForTimeout(100); // announce() writes the toast after a tick
  await page.evaluate(() => { const t = document.querySelector('#status'); if (t) t.textContent = ''; });
  await page.screenshot({ path: path.join(SHOTS, `accounts-${name}.png`), fullPage: true });
}

/** A fresh browser context and page that records script errors and CSP violations. */
async function newPage(viewport = DESKTOP) {
  const ctx = await browser().newContext({ viewport });
  ctx.setDefaultTimeout(15_000);
  const page = await ctx.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  return { ctx, page, problems };
}

const heading = (page, name) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();

async function devSignIn(page, email, next = '/dashboard') {
  await page.goto(`${API}${next}`);
  await page.fill('#dev-email', email);
  await page.click('#dev-login button[type="submit"]');
}

/** The first-run link from the api's log, while no user exists; else null. */
async function setupLink() {
  const file = process.env.SHIPMATE_API_LOG;
  if (!file) return null;
  const log = await readFile(file, 'utf8').catch(() => '');
  const m = log.match(/\/setup\?token=([A-Za-z0-9_~.%-]+)/g);
  return m ? `${API}${m[m.length - 1]}` : null;
}

test('first run: the setup link makes the instance admin, who manages users', { timeout: 120_000 }, async (t) => {
  const providers = await api('GET', '/v1/auth/providers', { expect: 200 });
  const link = await setupLink();
  if (!providers.setup_required || !link) {
    t.skip('users exist already (other test files ran first) or the api log is not readable');
    return;
  }
  const { ctx, page, problems } = await newPage();
  try {
    // Before setup, the sign-in page says what to do.
    await page.goto(`${API}/dashboard`);
    await page.locator('#setup-required').waitFor();
    assert.match(page.url(), /\/login$/);
    await shot(page, 'login-not-set-up');

    const adminEmail = `admin-${tag}@example.com`;
    await page.goto(link);
    await heading(page, 'Set up Shipmate');
    assert.doesNotMatch(page.url(), /token=/, 'the token leaves the address bar once read');
    await page.fill('#setup-name', 'Ada Admin');
    await page.fill('#setup-email', adminEmail);
    await page.fill('#setup-password', 'short');
    await page.click('#setup button[type="submit"]');
    await page.locator('#setup-password-err').waitFor({ state: 'visible' });
    assert.equal(await page.getAttribute('#setup-password', 'aria-invalid'), 'true');
    await page.fill('#setup-password', PASSWORD);
    await shot(page, 'setup');
    await page.click('#setup button[type="submit"]');
    await heading(page, 'Projects');
    assert.match(await page.locator('#main .empty').textContent(), /No projects yet/);
    assert.equal(await api('GET', '/v1/auth/providers', { expect: 200 }).then((p) => p.setup_required), false);
    // Signing out in the same page: the sign-in page no longer says the instance is not set up.
    await page.click('#sign-out');
    await page.locator('#login-form').waitFor();
    assert.equal(await page.locator('#setup-required').count(), 0);
    await page.fill('#login-email', adminEmail);
    await page.fill('#login-password', PASSWORD);
    await page.click('#login-form button[type="submit"]');
    await heading(page, 'Projects');
    // The setup link opened again says so before any form.
    await page.goto(link);
    await heading(page, 'Shipmate is set up');
    assert.equal(await page.locator('#setup').count(), 0);
    await page.goto(`${API}/dashboard`);
    await heading(page, 'Projects');

    // The admin link is in the top bar; the admin page lists users and the sign-in settings.
    const someone = `someone-${tag}@example.com`;
    const someoneToken = await login(someone, 'Sam Someone');
    await page.click('#admin-link');
    await heading(page, 'Instance admin');
    const row = page.locator(`#user-table tr[data-user="${someone}"]`);
    await row.waitFor();
    assert.ok(await page.locator(`#user-table tr[data-user="${adminEmail}"]`).isVisible());
    await page.locator('#setting-registration').waitFor();
    assert.match(await page.locator('#setting-registration').textContent(), /invitation/i);
    assert.match(await page.locator('#setting-email').textContent(), /not configured/i);

    // Disabling ends the person's sessions; enabling lets them in again.
    await row.locator('[data-action="disable"]').click();
    await page.click('#confirm-ok');
    await row.locator('[data-action="disable"]', { hasText: 'Enable' }).waitFor();
    await api('GET', '/v1/me', { token: someoneToken, expect: 401 });
    await row.locator('[data-action="disable"]').click();
    await row.locator('[data-action="disable"]', { hasText: 'Disable' }).waitFor();

    // A reset link, shown once, sets a password and signs that person in.
    await row.locator('[data-action="reset"]').click();
    const url = await page.locator('#reset-url').inputValue();
    assert.match(url, /\/reset-password\?token=/);
    await shot(page, 'admin');
    const other = await newPage();
    try {
      await other.page.goto(url);
      await heading(other.page, 'Choose a new password');
      await other.page.fill('#reset-password', PASSWORD);
      await other.page.fill('#reset-repeat', PASSWORD);
      await other.page.click('#reset-form button[type="submit"]');
      await heading(other.page, 'Projects');
      assert.equal((await other.page.locator('.account-email').textContent()).trim(), someone);
      assert.equal(await other.page.locator('#admin-link').count(), 0, 'no admin link for a non-admin');
      assert.deepEqual(other.problems, []);
    } finally {
      await other.ctx.close();
    }
    await api('POST', '/v1/auth/login', { body: { email: someone, password: PASSWORD }, expect: 200 });

    // On a phone the top bar keeps Account, Admin and Sign out without sideways scrolling.
    await page.setViewportSize(PHONE);
    await page.click('#reset-link-box button:text("Done")');
    assert.ok(await page.locator('#admin-link').isVisible() && await page.locator('#account-link').isVisible());
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the admin page scrolls sideways by ${overflow}px on a phone`);
    await shot(page, 'admin-phone');
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
  }
});

test('an invited member registers, lands in the project and sees the team read-only', { timeout: 120_000 }, async () => {
  const ownerEmail = `owner-${tag}@example.com`;
  const ownerToken = await login(ownerEmail, 'Olga Owner');
  const project = await api('POST', '/v1/projects', { token: ownerToken, body: { name: `Team ${tag}`, slug: `team-${tag}` }, expect: 201 });
  assert.equal(project.role, 'owner');
  const invite = await api('POST', `/v1/projects/${project.id}/invites`, { token: ownerToken, body: { email: member.email, role: 'member' }, expect: 201 });
  assert.match(invite.url, /\/invite\//);
  await api('POST', '/v1/indexes', { key: project.api_key, body: { name: 'Team docs', embedding_model: 'all-minilm-l6-v2' }, expect: 201 });

  const { ctx, page, problems } = await newPage();
  try {
    await page.goto(invite.url);
    await heading(page, `Join Team ${tag}`);
    assert.equal((await page.locator('#invite-role').textContent()).trim(), 'Member');
    assert.equal(await page.inputValue('#invite-register-email'), member.email);
    await shot(page, 'invite');
    await page.fill('#invite-register-name', member.name);
    await page.fill('#invite-register-password', PASSWORD);
    await page.click('#invite-register button[type="submit"]');
    await heading(page, 'Feedback');
    assert.ok(page.url().endsWith(`/dashboard/p/${project.id}/feedback`), page.url());
    member.project = project;

    // The Members page lists both, with their roles, and shows a member no controls.
    await page.click('#sidenav a[href$="/members"]');
    await heading(page, 'Members');
    const ownerRow = page.locator(`#member-table tr[data-member="${ownerEmail}"]`);
    const memberRow = page.locator(`#member-table tr[data-member="${member.email}"]`);
    await ownerRow.waitFor();
    assert.equal((await ownerRow.locator('[data-member-role]').textContent()).trim(), 'Owner');
    assert.equal((await memberRow.locator('[data-member-role]').textContent()).trim(), 'Member');
    assert.equal(await page.locator('#member-table select').count(), 0, 'a member changes no roles');
    assert.equal(await page.locator('#invite-form').count(), 0, 'a member invites nobody');
    assert.ok(await page.locator('#leave-project').isVisible());
    await shot(page, 'members-as-member');

    // Settings keep the API key from members; the knowledge base works with the session.
    await page.click('#sidenav a[href$="/settings"]');
    await heading(page, 'Settings');
    assert.match(await page.locator('#api-key-hidden').textContent(), /only owners and admins/i);
    assert.equal(await page.locator('#api-key').count(), 0);
    assert.equal(await page.locator('#delete-project').count(), 0);
    await shot(page, 'settings-as-member');
    await page.click('#sidenav a[href$="/knowledge"]');
    await heading(page, 'Knowledge base');
    await page.locator('#index-table', { hasText: 'Team docs' }).waitFor();
    assert.ok(await page.locator('#banner').isHidden(), 'no error banner');
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
  }

  // The owner's Members page: invite someone (the link shown once), change a role, revoke.
  const owner = await newPage();
  try {
    const { page } = owner;
    await devSignIn(page, ownerEmail, `/dashboard/p/${project.id}/members`);
    await heading(page, 'Members');
    const viewerEmail = `viewer-${tag}@example.com`;
    await page.fill('#invite-email', viewerEmail);
    assert.deepEqual(await page.locator('#invite-role option').evaluateAll((os) => os.map((o) => o.value)), ['owner', 'admin', 'member', 'viewer']);
    await page.selectOption('#invite-role', 'viewer');
    await page.click('#invite-form button[type="submit"]');
    await page.locator('#invite-url').waitFor();
    assert.match(await page.inputValue('#invite-url'), /\/invite\//);
    await page.locator(`#invite-list [data-invite="${viewerEmail}"]`).waitFor();
    await page.fill('#invite-email', member.email);
    await page.click('#invite-form button[type="submit"]');
    await page.waitForFunction(() => [...document.querySelectorAll('#invite-email-err, #invite-form .form-err')].some((e) => e.textContent.trim()));
    // (409: a member already)
    await page.locator(`#member-table tr[data-member="${member.email}"] select`).selectOption('viewer');
    await page.waitForFunction(() => /is now viewer/i.test(document.querySelector('#status').textContent));
    const { data: members } = await api('GET', `/v1/projects/${project.id}/members`, { token: ownerToken, expect: 200 });
    assert.equal(members.find((m) => m.email === member.email).role, 'viewer');
    await shot(page, 'members-as-owner');
    await page.locator(`#invite-list [data-invite="${viewerEmail}"] button`).click();
    await page.click('#confirm-ok');
    await page.locator(`#invite-list [data-invite="${viewerEmail}"]`).waitFor({ state: 'detached' });
    // The last owner cannot leave: the 409 shows in the banner.
    await page.click('#leave-project');
    await page.click('#confirm-ok');
    await page.locator('#banner').waitFor({ state: 'visible' });
    assert.match(await page.locator('#banner').textContent(), /last_owner/);
    await page.locator(`#member-table tr[data-member="${member.email}"] select`).selectOption('member');
    await page.waitForFunction(() => /is now member/i.test(document.querySelector('#status').textContent));
    assert.deepEqual(owner.problems, [], 'no script errors or CSP violations');
  } finally {
    await owner.ctx.close();
  }
});

test('a viewer sees the project without its write controls', { timeout: 60_000 }, async () => {
  const ownerToken = await login(`owner2-${tag}@example.com`, 'Otto Owner');
  const project = await api('POST', '/v1/projects', { token: ownerToken, body: { name: `Read ${tag}`, slug: `read-${tag}` }, expect: 201 });
  const fb = await api('POST', '/v1/feedback', { key: project.api_key, body: { title: 'Dark mode please', type: 'feature' }, expect: 201 });
  const viewerEmail = `viewer2-${tag}@example.com`;
  const invite = await api('POST', `/v1/projects/${project.id}/invites`, { token: ownerToken, body: { email: viewerEmail, role: 'viewer' }, expect: 201 });
  const token = invite.url.split('/invite/')[1];
  await api('POST', '/v1/auth/register', { body: { email: viewerEmail, name: 'Vic Viewer', password: PASSWORD, invite: token }, expect: 201 });

  const { ctx, page, problems } = await newPage();
  try {
    await page.goto(`${API}/login?next=${encodeURIComponent(`/dashboard/p/${project.id}/feedback`)}`);
    await page.fill('#login-email', viewerEmail);
    await page.fill('#login-password', PASSWORD);
    await page.click('#login-form button[type="submit"]');
    await heading(page, 'Feedback');
    const entry = page.locator(`[data-feedback="${fb.id}"]`);
    await entry.waitFor();
    assert.ok(await entry.locator('select').isHidden(), 'no status select for a viewer');
    await page.click('#sidenav a[href$="/changelog"]');
    await heading(page, 'Changelog');
    assert.ok(await page.locator('#new-entry').isHidden(), 'no new changelog entry for a viewer');
    await page.click('#sidenav a[href$="/knowledge"]');
    await heading(page, 'Knowledge base');
    await page.locator('#create-index').waitFor({ state: 'attached' });
    assert.ok(await page.locator('#create-index').isHidden(), 'no new index for a viewer');
    await page.click('#sidenav a[href$="/members"]');
    await heading(page, 'Members');
    assert.equal((await page.locator(`#member-table tr[data-member="${viewerEmail}"] [data-member-role]`).textContent()).trim(), 'Viewer');
    await page.click('.nav-back');
    await heading(page, 'Projects');
    assert.equal((await page.locator(`[data-project="${project.id}"] .badge`).textContent()).trim(), 'Viewer');
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
  }
});

test('an invitation is accepted by the invited account; another account is asked to sign out', { timeout: 60_000 }, async () => {
  const ownerToken = await login(`owner3-${tag}@example.com`, 'Oona Owner');
  const project = await api('POST', '/v1/projects', { token: ownerToken, body: { name: `Join ${tag}`, slug: `join-${tag}` }, expect: 201 });
  const invitedEmail = `existing-${tag}@example.com`;
  await login(invitedEmail, 'Erin Existing'); // an account already
  const invite = await api('POST', `/v1/projects/${project.id}/invites`, { token: ownerToken, body: { email: invitedEmail, role: 'admin' }, expect: 201 });

  const { ctx, page, problems } = await newPage();
  try {
    await devSignIn(page, `other-${tag}@example.com`);
    await heading(page, 'Projects');
    await page.goto(invite.url);
    await page.locator('#invite-other-email').waitFor();
    assert.match(await page.locator('#invite-other-email').textContent(), new RegExp(invitedEmail));
    await page.click('#invite-sign-out');
    await page.locator('#invite-register').waitFor();
    await page.click('#invite-sign-in');
    await heading(page, 'Sign in to Shipmate');
    await page.fill('#dev-email', invitedEmail);
    await page.click('#dev-login button[type="submit"]');
    await page.locator('#accept-invite').waitFor();
    assert.equal((await page.locator('#invite-role').textContent()).trim(), 'Admin');
    await page.click('#accept-invite');
    await heading(page, 'Feedback');
    assert.ok(page.url().endsWith(`/dashboard/p/${project.id}/feedback`), page.url());
    const { data } = await api('GET', `/v1/projects/${project.id}/members`, { token: ownerToken, expect: 200 });
    assert.equal(data.find((m) => m.email === invitedEmail).role, 'admin');
    // Used once: the link now says so.
    await page.goto(invite.url);
    await heading(page, 'This invitation is not valid');
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
  }
});

test('the sign-in page: email and password, a wrong password, forgot password', { timeout: 90_000 }, async () => {
  assert.ok(member.project, 'the invitation test made the member');
  const { ctx, page, problems } = await newPage(PHONE);
  try {
    // A deep link without a session goes to /login and comes back after sign-in.
    await page.goto(`${API}/dashboard/p/${member.project.id}/members`);
    await heading(page, 'Sign in to Shipmate');
    assert.match(page.url(), /\/login\?next=%2Fdashboard%2Fp%2F/);
    await page.fill('#login-email', member.email);
    await page.fill('#login-password', 'not the password');
    await page.click('#login-form button[type="submit"]');
    await page.waitForFunction(() => /wrong email or password/i.test(document.querySelector('#login-form .form-err').textContent));
    await shot(page, 'login-wrong-password');

    await page.click('#forgot-password');
    assert.equal(await page.inputValue('#reset-email'), member.email);
    await page.click('#reset-request button[type="submit"]');
    await page.waitForFunction(() => /if an account exists/i.test(document.querySelector('#reset-request .form-ok').textContent));

    await page.fill('#login-password', PASSWORD);
    await page.click('#login-form button[type="submit"]');
    await heading(page, 'Members');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px on a phone`);

    // Signing out lands on /login; a plain sign-in reaches the projects.
    await page.click('#sign-out');
    await page.locator('#signin-title').waitFor();
    assert.match(page.url(), /\/login$/);
    await page.fill('#login-email', member.email);
    await page.fill('#login-password', PASSWORD);
    await page.click('#login-form button[type="submit"]');
    await heading(page, 'Projects');
    await page.locator(`#project-list [data-project="${member.project.id}"]`).waitFor();
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
  }
});

test('shipmate login: the sign-in page hands the session to the CLI\'s loopback listener', { timeout: 60_000 }, async () => {
  assert.ok(member.project, 'the invitation test made the member');
  // The CLI's listener: records what the browser brings back.
  const got = [];
  const server = createServer((req, res) => {
    const u = new URL(req.url, 'http://127.0.0.1');
    if (u.pathname === '/callback') got.push(u); // not the browser's /favicon.ico
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('You can close this tab.');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const callback = `http://127.0.0.1:${server.address().port}/callback`;
  const { ctx, page, problems } = await newPage();
  try {
    await page.goto(`${API}/v1/auth/password/start?${new URLSearchParams({ cli_callback: callback, state: `cli-${tag}` })}`);
    await heading(page, 'Sign in to Shipmate');
    assert.match(page.url(), /\/login\?cli_callback=/);
    assert.equal(await page.locator('#dev-login').count(), 0, 'no development sign-in for the CLI');
    await page.fill('#login-email', member.email);
    await page.fill('#login-password', PASSWORD);
    await page.click('#login-form button[type="submit"]');
    await page.waitForURL((u) => u.href.startsWith(callback));
    assert.equal(got.length, 1);
    assert.equal(got[0].searchParams.get('state'), `cli-${tag}`);
    const token = got[0].searchParams.get('token');
    assert.match(token || '', /^st_/);
    const me = await api('GET', '/v1/me', { token, expect: 200 });
    assert.equal(me.email, member.email);
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
    server.close();
  }
});

test('the account page lists sessions, ends another one and changes the password', { timeout: 90_000 }, async () => {
  assert.ok(member.project, 'the invitation test made the member');
  const { token } = await api('POST', '/v1/auth/login', { body: { email: member.email, password: PASSWORD }, expect: 200 });
  const { data: fromCli } = await api('GET', '/v1/auth/sessions', { token, expect: 200 });
  const cliSession = fromCli.find((s) => s.current);
  assert.ok(cliSession, 'the api marks the current session');

  const { ctx, page, problems } = await newPage();
  try {
    await page.goto(`${API}/login`);
    await page.fill('#login-email', member.email);
    await page.fill('#login-password', PASSWORD);
    await page.click('#login-form button[type="submit"]');
    await heading(page, 'Projects');
    await page.click('#account-link');
    await heading(page, 'Account');
    assert.equal((await page.locator('#profile-email').textContent()).trim(), member.email);
    await page.locator('#session-table tbody tr').first().waitFor();
    assert.ok(await page.locator('#session-table tbody tr').count() >= 2, 'at least two sessions');
    assert.equal(await page.locator('#session-table tr[data-current="true"]').count(), 1, 'one session marked current');
    await shot(page, 'account');

    await page.click(`[data-end-session="${cliSession.id}"]`);
    await page.click('#confirm-ok');
    await page.locator(`#session-table tr[data-session="${cliSession.id}"]`).waitFor({ state: 'detached' });
    await api('GET', '/v1/me', { token, expect: 401 });

    const newPassword = `${PASSWORD} again`;
    await page.fill('#pw-current', 'wrong current password');
    await page.fill('#pw-new', newPassword);
    await page.fill('#pw-repeat', newPassword);
    await page.click('#password-form button[type="submit"]');
    await page.locator('#pw-current-err').waitFor({ state: 'visible' });
    await heading(page, 'Account'); // a wrong current password is not a lost session
    await page.fill('#pw-current', PASSWORD);
    await page.click('#password-form button[type="submit"]');
    await page.waitForFunction(() => /password changed/i.test(document.querySelector('#status').textContent));
    await api('POST', '/v1/auth/login', { body: { email: member.email, password: newPassword }, expect: 200 });
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
  }
});

/** Runs SQL on the stack's database (run.sh passes its URL). */
function sql(statement) {
  execFileSync('psql', ['--no-psqlrc', '-q', '-v', 'ON_ERROR_STOP=1', process.env.SHIPMATE_TEST_DB_URL, '-c', statement]);
}

test('an unverified password account sees "verify your email" until its link is used', { timeout: 60_000, skip: !process.env.SHIPMATE_TEST_DB_URL }, async () => {
  const ownerToken = await login(`owner4-${tag}@example.com`, 'Ulla Owner');
  const project = await api('POST', '/v1/projects', { token: ownerToken, body: { name: `Verify ${tag}`, slug: `verify-${tag}` }, expect: 201 });
  const email = `unverified-${tag}@example.com`;
  const invite = await api('POST', `/v1/projects/${project.id}/invites`, { token: ownerToken, body: { email, role: 'member' }, expect: 201 });
  await api('POST', '/v1/auth/register', { body: { email, name: 'Uma Unverified', password: PASSWORD, invite: invite.url.split('/invite/')[1] }, expect: 201 });
  // An account from before verification existed, as the migration leaves a password-only one; and
  // a link as the verification email would carry (only its hash is stored).
  const link = randomBytes(16).toString('hex');
  const hash = createHash('sha256').update(link).digest('hex');
  sql(`update users set email_verified = false where email = '${email}'`);
  sql(`insert into email_verifications (token_hash, user_id, expires_at)
       select '\\x${hash}'::bytea, id, now() + interval '1 day' from users where email = '${email}'`);

  const { ctx, page, problems } = await newPage();
  try {
    await page.goto(`${API}/login`);
    await page.fill('#login-email', email);
    await page.fill('#login-password', PASSWORD);
    await page.click('#login-form button[type="submit"]');
    await heading(page, 'Projects');
    const notice = page.locator('#verify-notice');
    await notice.waitFor();
    assert.match(await notice.textContent(), /Verify your email/);
    assert.match(await notice.textContent(), new RegExp(email));
    // This stack sends no email: the button says so rather than pretending.
    await page.click('#verify-resend');
    await page.locator('#status', { hasText: 'sends no email' }).waitFor();
    await shot(page, 'verify-notice');

    await page.goto(`${API}/verify-email?token=${link}`);
    await heading(page, 'Email verified');
    await page.click('a[href="/dashboard"]');
    await heading(page, 'Projects');
    assert.ok(await notice.isHidden(), 'the notice is gone once verified');
    await page.goto(`${API}/verify-email?token=${link}`);
    await page.getByText('expired or was used already').waitFor();
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
  }
});

test('the account page makes a personal access token, shows it once, and revokes it', { timeout: 60_000 }, async () => {
  const email = `tokens-${tag}@example.com`;
  const { ctx, page, problems } = await newPage();
  try {
    await devSignIn(page, email, '/dashboard/account');
    await heading(page, 'Account');
    await page.locator('#token-none').waitFor();
    await page.fill('#token-name', 'CI deploys');
    await page.selectOption('#token-expiry', '30');
    await page.click('#token-form button[type="submit"]');
    const value = page.locator('#token-value');
    await value.waitFor();
    const token = (await value.textContent()).trim();
    assert.match(token, /^st_/);
    const row = page.locator('#token-table tbody tr');
    await row.first().waitFor();
    assert.equal(await row.count(), 1);
    assert.match(await row.first().textContent(), /CI deploys/);
    assert.ok(!(await page.locator('#token-table').textContent()).includes(token), 'the list never shows the token');
    const me = await api('GET', '/v1/me', { token, expect: 200 });
    assert.equal(me.email, email);
    await shot(page, 'tokens');

    await page.click('[data-revoke-token]');
    await page.click('#confirm-ok');
    await page.locator('#token-none').waitFor();
    await api('GET', '/v1/me', { token, expect: 401 });
    assert.deepEqual(problems, [], 'no script errors or CSP violations');
  } finally {
    await ctx.close();
  }
});
