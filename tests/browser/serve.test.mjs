// The static server: MIME types, the Content-Security-Policy header, compression by
// Accept-Encoding with the compressed bytes kept until the file changes, conditional requests, no
// path traversal, and clean answers when a file vanishes or cannot be read.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

let serve, server, port, dir;
const servers = [];
// A page of text that compresses well: 200 copies of one line (about 9 KB).
const PAGE = `<!doctype html><title>t</title>\n${'<p>A roofline: the lower of compute and bandwidth.</p>\n'.repeat(200)}`;

async function listen(srv) {
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  servers.push(srv);
  return srv.address().port;
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-site-'));
  fs.mkdirSync(path.join(dir, 'site', 'wasm'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'site', 'index.html'), PAGE);
  // A wasm header and a body of zeros: compressible, served as application/wasm.
  fs.writeFileSync(path.join(dir, 'site', 'wasm', 'm.wasm'), Buffer.concat([Buffer.from([0, 97, 115, 109, 1, 0, 0, 0]), Buffer.alloc(4096)]));
  fs.writeFileSync(path.join(dir, 'site', 'wasm', 'm.mjs'), 'export default 1;');
  fs.mkdirSync(path.join(dir, 'site', 'data'));
  fs.writeFileSync(path.join(dir, 'site', 'data', 'catalog.json'), '{"ok":true}');
  fs.writeFileSync(path.join(dir, 'site', 'font.woff2'), Buffer.alloc(2048, 7));
  fs.writeFileSync(path.join(dir, 'secret.txt'), 'outside the site');
  process.env.SB_SITE = path.join(dir, 'site');
  serve = await import(`../../web/serve.mjs?site=${encodeURIComponent(dir)}`);
  server = serve.createServer();
  port = await listen(server);
});
after(() => { for (const s of servers) s.close(); fs.rmSync(dir, { recursive: true, force: true }); });

// Sends the raw path (no URL normalisation, unlike fetch); the body as bytes, as sent.
function get(rawPath, headers = {}, { method = 'GET', to = port } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: to, path: rawPath, method, headers }, (res) => {
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        resolve({ status: res.statusCode, headers: res.headers, raw, body: raw.toString() });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const decode = (r) => (r.headers['content-encoding'] === 'br' ? zlib.brotliDecompressSync(r.raw)
  : r.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(r.raw) : r.raw);

test('serves files with their MIME type and the CSP header', async () => {
  const html = await get('/');
  assert.equal(html.status, 200);
  assert.match(html.headers['content-type'], /^text\/html/);
  assert.equal(html.headers['content-security-policy'],
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
    "font-src 'self'; worker-src 'self'; base-uri 'none'; frame-ancestors 'self'");
  assert.equal(html.body, PAGE);  // no Accept-Encoding: as stored
  assert.equal((await get('/wasm/m.wasm')).headers['content-type'], 'application/wasm');
  assert.match((await get('/wasm/m.mjs')).headers['content-type'], /^text\/javascript/);
  // The catalogue and chip tables a page fetches: JSON, with the same CSP.
  const json = await get('/data/catalog.json');
  assert.match(json.headers['content-type'], /^application\/json/);
  assert.equal(json.body, '{"ok":true}');
  assert.equal(json.headers['content-security-policy'], html.headers['content-security-policy']);
  const missing = await get('/nothing.js');
  assert.equal(missing.status, 404);
  assert.equal(missing.headers['content-security-policy'], html.headers['content-security-policy']);
  assert.equal((await get('/', {}, { method: 'POST' })).status, 405);
});

test('the meta copy of the CSP leaves out what a meta policy cannot carry', async () => {
  const { CSP, CSP_META } = await import('../../web/csp.mjs');
  assert.equal(CSP, serve.CSP);
  assert.match(CSP, /frame-ancestors 'self'/);
  assert.doesNotMatch(CSP_META, /frame-ancestors|report-uri|sandbox/);
  assert.equal(CSP_META, CSP.replace("; frame-ancestors 'self'", ''));
});

test('compresses by Accept-Encoding: brotli first, then gzip, else as stored', async () => {
  for (const [accept, enc] of [
    ['gzip, deflate, br', 'br'], ['br', 'br'], ['gzip', 'gzip'], ['br;q=0, gzip', 'gzip'], ['*', 'br'],
    ['br;q=0, *', 'gzip'], ['identity', undefined], ['', undefined], ['deflate', undefined],
  ]) {
    const r = await get('/index.html', accept ? { 'Accept-Encoding': accept } : {});
    assert.equal(r.status, 200, accept);
    assert.equal(r.headers['content-encoding'], enc, accept);
    assert.equal(r.headers.vary, 'Accept-Encoding');
    assert.equal(Number(r.headers['content-length']), r.raw.length, accept);
    assert.equal(decode(r).toString(), PAGE, accept);
    // 200 copies of one line pack to a fraction of the page.
    if (enc) assert.ok(r.raw.length < PAGE.length / 10, `${accept}: ${r.raw.length} bytes`);
  }
  // wasm compresses too, and stays application/wasm (streaming compilation needs the type).
  const wasm = await get('/wasm/m.wasm', { 'Accept-Encoding': 'gzip, br' });
  assert.equal(wasm.headers['content-encoding'], 'br');
  assert.equal(wasm.headers['content-type'], 'application/wasm');
  assert.deepEqual([...decode(wasm).subarray(0, 4)], [0, 97, 115, 109]);
  // A font is compressed already: sent as it is.
  const font = await get('/font.woff2', { 'Accept-Encoding': 'br' });
  assert.equal(font.headers['content-encoding'], undefined);
  assert.equal(font.raw.length, 2048);
  // HEAD: the headers of the GET, no body.
  const head = await get('/index.html', { 'Accept-Encoding': 'br' }, { method: 'HEAD' });
  const full = await get('/index.html', { 'Accept-Encoding': 'br' });
  assert.equal(head.headers['content-length'], full.headers['content-length']);
  assert.equal(head.raw.length, 0);
});

test('keeps the compressed bytes until the file changes; a matching ETag gets 304', async () => {
  const file = path.join(dir, 'site', 'data', 'cached.json');
  const one = JSON.stringify({ ok: true, v: 'one'.repeat(100) });
  fs.writeFileSync(file, one);
  let reads = 0;
  const counting = serve.createServer({ readFile: (f) => { reads += 1; return fs.promises.readFile(f); } });
  const to = await listen(counting);
  const a = await get('/data/cached.json', { 'Accept-Encoding': 'br' }, { to });
  const b = await get('/data/cached.json', { 'Accept-Encoding': 'br' }, { to });
  assert.equal(reads, 1);
  assert.equal(decode(a).toString(), one);
  assert.deepEqual(b.raw, a.raw);
  assert.equal(b.headers.etag, a.headers.etag);
  // The gzip form has its own tag.
  const g = await get('/data/cached.json', { 'Accept-Encoding': 'gzip' }, { to });
  assert.notEqual(g.headers.etag, a.headers.etag);
  assert.equal(reads, 1);
  const again = await get('/data/cached.json', { 'Accept-Encoding': 'br', 'If-None-Match': a.headers.etag }, { to });
  assert.equal(again.status, 304);
  assert.equal(again.raw.length, 0);
  // A new version (another size) is read and compressed afresh.
  const two = JSON.stringify({ ok: true, v: 'two'.repeat(150) });
  fs.writeFileSync(file, two);
  const c = await get('/data/cached.json', { 'Accept-Encoding': 'br', 'If-None-Match': a.headers.etag }, { to });
  assert.equal(c.status, 200);
  assert.equal(reads, 2);
  assert.equal(decode(c).toString(), two);
  assert.notEqual(c.headers.etag, a.headers.etag);
});

test('a file that vanishes or cannot be read gets a clean 404 or 500, and the server goes on', async () => {
  const file = path.join(dir, 'site', 'gone.js');
  fs.writeFileSync(file, 'export const x = 1;');
  assert.equal((await get('/gone.js')).status, 200);
  fs.rmSync(file);
  assert.equal((await get('/gone.js')).status, 404);
  // A link that points at itself cannot be read: 500.
  fs.symlinkSync('loop.js', path.join(dir, 'site', 'loop.js'));
  const loop = await get('/loop.js');
  assert.equal(loop.status, 500);
  assert.equal(loop.body, 'cannot read this file');
  // A file that vanishes between stat and read, and one whose read fails: a server whose reads fail.
  const failing = (code) => serve.createServer({
    readFile: async () => { throw Object.assign(new Error(code), { code }); },
  });
  const p404 = await listen(failing('ENOENT'));
  const p500 = await listen(failing('EIO'));
  assert.equal((await get('/index.html', {}, { to: p404 })).status, 404);
  const r = await get('/index.html', { 'Accept-Encoding': 'br' }, { to: p500 });
  assert.equal(r.status, 500);
  assert.match(r.headers['content-security-policy'], /default-src 'self'/);
  // Still serving.
  assert.equal((await get('/index.html', {}, { to: p500 })).status, 500);  // the failed read is not kept
  assert.equal(decode(await get('/index.html', { 'Accept-Encoding': 'gzip' })).toString(), PAGE);
});

test('rejects path traversal', async () => {
  for (const p of ['/../secret.txt', '/wasm/../../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/wasm/..%5c..%5csecret.txt']) {
    const r = await get(p);
    assert.ok(r.status === 403 || r.status === 404, `${p} -> ${r.status}`);
    assert.ok(!r.body.includes('outside the site'), p);
  }
});
