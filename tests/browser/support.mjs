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
