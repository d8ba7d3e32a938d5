// The browser half of benches/first-page-view/run.sh: a test page on 127.0.0.1 carrying the
// analytics snippet as the dashboard shows it, opened in headless Chromium, then the API the
// dashboard's analytics view reads is polled until it counts the page view. Prints the seconds
// from the page's opening to the first counted view.
//   node view.mjs <api url> <publishable key> <project id> <session token>
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// playwright-core as the browser tests install it (tests/browser/run.sh runs `npm ci` there).
const { chromium } = createRequire(path.join(here, '..', '..', 'tests', 'browser', 'package.json'))('playwright-core');
const [api, key, project, session] = process.argv.slice(2);

const page = `<!doctype html><title>Hello</title><h1>Hello</h1>
<script defer data-project="${key}" data-api="${api}" src="${api}/sdk/sm.js" data-allow-localhost></script>`;
const server = createServer((_, res) => { res.writeHead(200, { 'Content-Type': 'text/html' }); res.end(page); });
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const site = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
});
const opened = Date.now();
try {
  // Headless Chromium names itself HeadlessChrome, which the api rightly drops as a bot.
  const tab = await browser.newPage({ userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36' });
  await tab.goto(site);
  const deadline = opened + 120_000;
  for (;;) {
    const res = await fetch(`${api}/v1/analytics/realtime?project_id=${project}`, { headers: { Authorization: `Bearer ${session}` } });
    const body = res.ok ? await res.json() : {};
    if ((body.page_views || body.visitors || 0) > 0) break;
    if (Date.now() > deadline) throw new Error(`no page view counted within 120 s: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  console.log(((Date.now() - opened) / 1000).toFixed(1));
} finally {
  await browser.close();
  server.close();
}
