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
