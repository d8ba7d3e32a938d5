// What every browser test needs: the API's address, Chromium launched as this machine allows, and
// small helpers to call the API and make a signed-in owner with a project of their own.
import { before, after } from 'node:test';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { chromium } from 'playwright-core';

export const API = (process.env.SHIPMATE_API_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SHOTS = path.join(REPO, 'target', 'screenshots');
export const PHONE = { width: 390, height: 844 };
// Without the background-networking flags Chromium keeps dialling out, and this network refuses.
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

/** Launches Chromium before the file's tests and closes it after; returns a getter for it. */
export function useBrowser() {
  let browser;
  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      headless: true,
      args: CHROMIUM_ARGS,
    });
  });
  after(async () => {
    if (browser) await browser.close();
  });
  return () => browser;
}

/** Calls the API; with `expect`, fails loudly on any other status. Returns the parsed body. */
export async function api(method, p, { token, key, body, expect, headers: extra } = {}) {
  const headers = { Accept: 'application/json', ...extra };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (key) headers['X-Project-Key'] = key;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(API + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (expect !== undefined && res.status !== expect) {
    throw new Error(`${method} ${p}: expected ${expect}, got ${res.status}: ${text}`);
  }
  return text ? JSON.parse(text) : null;
}

export async function login(email, name = 'Browser Tester') {
  const { token } = await api('POST', '/v1/auth/dev-login', { body: { email, name }, expect: 200 });
  return token;
}

/** A new owner with a new project whose slug is unique to this run. */
export async function setup(label) {
  const slug = `${label}-${randomBytes(4).toString('hex')}`;
  const token = await login(`owner-${slug}@example.com`);
  const project = await api('POST', '/v1/projects', { token, body: { name: `Acme ${label}`, slug }, expect: 201 });
  return { slug, token, project, key: project.api_key };
}

export const DESKTOP = { width: 1280, height: 800 };

/** Waits for the page's main heading. */
export const heading = (page, name) => page.getByRole('heading', { level: 1, name, exact: true }).waitFor();

/**
 * A new owner with a project, signed in (the session cookie) in a new browser context that is open
 * on one of the project's dashboard sections; `problems` collects page and console errors.
 */
export async function openOwnerPage(chromium, label, section) {
  const slug = `${label}-${randomBytes(4).toString('hex')}`;
  const email = `owner-${slug}@example.com`;
  const token = await login(email, 'Olive Owner');
  const project = await api('POST', '/v1/projects', { token, body: { name: `Loop ${label}`, slug }, expect: 201 });
  const ctx = await chromium.newContext({ viewport: DESKTOP });
  ctx.setDefaultTimeout(15_000);
  await ctx.addCookies([{ name: 'shipmate_session', value: token, url: API, httpOnly: true, sameSite: 'Lax' }]);
  const page = await ctx.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  await page.goto(`${API}/dashboard/p/${project.id}/${section}`);
  return { slug, token, project, key: project.api_key, ctx, page, problems };
}
