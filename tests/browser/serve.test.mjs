// The static server: MIME types, the Content-Security-Policy header, and no path traversal.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let server, port, dir;
before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-site-'));
  fs.mkdirSync(path.join(dir, 'site', 'wasm'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'site', 'index.html'), '<!doctype html><title>t</title>');
  fs.writeFileSync(path.join(dir, 'site', 'wasm', 'm.wasm'), Buffer.from([0, 97, 115, 109, 1, 0, 0, 0]));
  fs.writeFileSync(path.join(dir, 'site', 'wasm', 'm.mjs'), 'export default 1;');
  fs.mkdirSync(path.join(dir, 'site', 'data'));
  fs.writeFileSync(path.join(dir, 'site', 'data', 'catalog.json'), '{"ok":true}');
  fs.writeFileSync(path.join(dir, 'secret.txt'), 'outside the site');
  process.env.SB_SITE = path.join(dir, 'site');
  const { createServer } = await import(`../../web/serve.mjs?site=${encodeURIComponent(dir)}`);
  server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  port = server.address().port;
});
after(() => { server?.close(); fs.rmSync(dir, { recursive: true, force: true }); });

// Sends the raw path (no URL normalisation, unlike fetch).
function get(rawPath) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: rawPath, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('serves files with their MIME type and the CSP header', async () => {
  const html = await get('/');
  assert.equal(html.status, 200);
  assert.match(html.headers['content-type'], /^text\/html/);
  assert.equal(html.headers['content-security-policy'],
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'");
  assert.equal((await get('/wasm/m.wasm')).headers['content-type'], 'application/wasm');
  assert.match((await get('/wasm/m.mjs')).headers['content-type'], /^text\/javascript/);
  // The catalogue and chip tables a page fetches: JSON, with the same CSP.
  const json = await get('/data/catalog.json');
  assert.match(json.headers['content-type'], /^application\/json/);
  assert.equal(json.body, '{"ok":true}');
  assert.equal((await get('/nothing.js')).status, 404);
});

test('rejects path traversal', async () => {
  for (const p of ['/../secret.txt', '/wasm/../../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/wasm/..%5c..%5csecret.txt']) {
    const r = await get(p);
    assert.ok(r.status === 403 || r.status === 404, `${p} -> ${r.status}`);
    assert.ok(!r.body.includes('outside the site'), p);
  }
});
