// The browser analytics script must stay at or under 1.2 KB gzipped (gzip -9), as the API contract promises.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { gzipSync, constants } from 'node:zlib';

const LIMIT = 1229; // 1.2 KB

test('sdk/script/sm.js is at most 1.2 KB gzipped', async () => {
  const src = await readFile(new URL('../../sdk/script/sm.js', import.meta.url));
  const size = gzipSync(src, { level: constants.Z_BEST_COMPRESSION }).length;
  console.log(`sm.js: ${src.length} bytes, ${size} bytes gzipped (limit ${LIMIT})`);
  assert.ok(size <= LIMIT, `sm.js is ${size} bytes gzipped, over the ${LIMIT}-byte limit`);
});

test('sdk/script/sm.js uses no cookies or storage', async () => {
  const src = await readFile(new URL('../../sdk/script/sm.js', import.meta.url), 'utf8');
  const code = src.replace(/\/\*[\s\S]*?\*\//g, '');
  for (const word of ['cookie', 'localStorage', 'sessionStorage', 'indexedDB']) {
    assert.ok(!code.includes(word), `sm.js must not touch ${word}`);
  }
});

// sm.plus.js is served as sm.js followed by plus.js (api/src/routes/meta.rs): at most 2.5 KB gzipped together.
test('sm.plus.js (sm.js + plus.js) is at most 2.5 KB gzipped and uses no storage', async () => {
  const base = await readFile(new URL('../../sdk/script/sm.js', import.meta.url));
  const plus = await readFile(new URL('../../sdk/script/plus.js', import.meta.url));
  const src = Buffer.concat([base, plus]);
  const size = gzipSync(src, { level: constants.Z_BEST_COMPRESSION }).length;
  console.log(`sm.plus.js: ${src.length} bytes, ${size} bytes gzipped (limit 2560)`);
  assert.ok(size <= 2560, `sm.plus.js is ${size} bytes gzipped, over 2.5 KB`);
  const code = plus.toString('utf8').replace(/\/\*[\s\S]*?\*\//g, '');
  for (const word of ['cookie', 'localStorage', 'sessionStorage', 'indexedDB']) {
    assert.ok(!code.includes(word), `plus.js must not touch ${word}`);
  }
});
