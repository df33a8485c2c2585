// A dependency-free static server for build/site (node:http). PORT overrides 8080; SB_SITE
// overrides the directory. Every response carries the site's Content-Security-Policy (web/csp.mjs).
// Files go out compressed (brotli or gzip, as the request's Accept-Encoding allows), the compressed
// bytes kept in memory while the file's size and mtime stay the same; wasm as application/wasm, so
// that browsers compile a module while it downloads. A file that vanishes or cannot be read is a
// 404 or 500 answer, never a crash.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { CSP } from './csp.mjs';

export { CSP };

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const site = path.resolve(process.env.SB_SITE || path.join(root, 'build', 'site'));
const port = process.env.PORT !== undefined ? Number(process.env.PORT) : 8080;
const host = process.env.HOST || '127.0.0.1';

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8', '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon',
  '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.txt': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8', '.map': 'application/json; charset=utf-8',
};
// Formats that are compressed already: sent as they are.
const PACKED = new Set(['.woff2', '.woff', '.png', '.ico']);

// Every response: the CSP, no MIME sniffing. The site's files are public and the widgets are made
// to be embedded in other sites' pages (lib/embed.js), which load them across origins.
const COMMON = {
  'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff',
  'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin',
};

function send(res, status, body, extra = {}) {
  res.writeHead(status, { ...COMMON, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...extra });
  res.end(body);
}

// Maps a URL path to a file inside `site`, or null if it would leave it.
function resolve(urlPath) {
  let p;
  try { p = decodeURIComponent(urlPath); } catch { return null; }
  if (p.includes('\0') || p.includes('\\')) return null;
  const file = path.resolve(site, '.' + path.posix.normalize('/' + p));
  if (file !== site && !file.startsWith(site + path.sep)) return null;
  return file;
}

// The encoding to send, from Accept-Encoding: brotli, else gzip, else none. q=0 refuses one;
// "*" stands for any not named.
export function pickEncoding(header) {
  const q = new Map();
  for (const part of String(header || '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qp = params.map((s) => s.trim()).find((s) => s.startsWith('q='));
    const v = qp ? Number(qp.slice(2)) : 1;
    q.set(name, Number.isFinite(v) ? v : 0);
  }
  const ok = (enc) => (q.has(enc) ? q.get(enc) > 0 : (q.get('*') ?? 0) > 0);
  if (ok('br')) return 'br';
  if (ok('gzip')) return 'gzip';
  return null;
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
const COMPRESS = {
  // Quality 9 of 11: the roofline module 384 KB -> 126 KB in ~60 ms once (11: 116 KB in ~1 s).
  br: (buf, type) => brotli(buf, { params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: 9,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: buf.length,
    [zlib.constants.BROTLI_PARAM_MODE]: type.startsWith('text/') ? zlib.constants.BROTLI_MODE_TEXT : zlib.constants.BROTLI_MODE_GENERIC,
  } }),
  gzip: (buf) => gzip(buf, { level: 9 }),
};

const notFound = (e) => ['ENOENT', 'ENOTDIR', 'EISDIR'].includes(e?.code);

// `readFile` and `stat` may be replaced (tests make them fail).
export function createServer({ readFile = fs.promises.readFile, stat = fs.promises.stat } = {}) {
  // file -> {size, mtimeMs, raw: Promise<Buffer>, br?: Promise<Buffer>, gzip?: Promise<Buffer>}
  const cache = new Map();

  async function entry(file, st) {
    let e = cache.get(file);
    if (!e || e.size !== st.size || e.mtimeMs !== st.mtimeMs) {
      e = { size: st.size, mtimeMs: st.mtimeMs, raw: readFile(file) };
      cache.set(file, e);
      e.raw.catch(() => { if (cache.get(file) === e) cache.delete(file); });  // read again next time
    }
    return e;
  }

  // The bytes to send for `enc` (null: as stored); the compressed form only where it is smaller.
  async function body(e, enc, type) {
    const raw = await e.raw;
    if (!enc) return { bytes: raw, enc: null };
    if (!e[enc]) {
      e[enc] = COMPRESS[enc](raw, type);
      e[enc].catch(() => { e[enc] = null; });
    }
    const packed = await e[enc];
    return packed.length < raw.length ? { bytes: packed, enc } : { bytes: raw, enc: null };
  }

  async function serve(req, res) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed', { Allow: 'GET, HEAD' });
    const raw = (req.url || '/').split('?')[0].split('#')[0];
    // Refuse any ".." segment outright, encoded or not, before normalising.
    if (/(^|\/|%2f|%5c)\.\.(\/|%2f|%5c|$)/i.test(raw) || /%2e%2e/i.test(raw)) return send(res, 403, 'forbidden');
    let file = resolve(raw);
    if (!file) return send(res, 403, 'forbidden');
    let st;
    try {
      st = await stat(file);
      if (st.isDirectory()) {
        file = path.join(file, 'index.html');
        st = await stat(file);
      }
    } catch (e) {
      return notFound(e) ? send(res, 404, 'not found') : send(res, 500, 'cannot read this file');
    }
    if (!st.isFile()) return send(res, 404, 'not found');
    const ext = path.extname(file).toLowerCase();
    const type = MIME[ext] || 'application/octet-stream';
    const want = PACKED.has(ext) ? null : pickEncoding(req.headers['accept-encoding']);
    let out;
    try {
      out = await body(await entry(file, st), want, type);
    } catch (e) {
      return notFound(e) ? send(res, 404, 'not found') : send(res, 500, 'cannot read this file');
    }
    const etag = `"${st.size.toString(36)}-${Math.floor(st.mtimeMs).toString(36)}${out.enc ? '-' + out.enc : ''}"`;
    const headers = {
      ...COMMON, 'Content-Type': type, 'Cache-Control': 'no-cache', ETag: etag, Vary: 'Accept-Encoding',
    };
    const inm = req.headers['if-none-match'];
    if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
      res.writeHead(304, headers);
      return res.end();
    }
    if (out.enc) headers['Content-Encoding'] = out.enc;
    headers['Content-Length'] = out.bytes.length;
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : out.bytes);
  }

  return http.createServer((req, res) => {
    serve(req, res).catch(() => {
      // Only a bug gets here; the answer is still an answer.
      if (!res.headersSent) send(res, 500, 'internal error');
      else res.destroy();
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!fs.existsSync(path.join(site, 'index.html'))) {
    console.error(`serve: ${site} has no index.html: run npm run build:web first`);
    process.exit(1);
  }
  const server = createServer();
  server.listen(port, host, () => {
    const where = host === '127.0.0.1' || host === '0.0.0.0' ? 'localhost' : host;
    console.log(`The companion is at http://${where}:${server.address().port}/ (serving ${site})`);
  });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
}
