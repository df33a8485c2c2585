// A dependency-free static server for build/site (node:http). PORT overrides 8080; SB_SITE
// overrides the directory. Sends the site's Content-Security-Policy with every response.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const site = path.resolve(process.env.SB_SITE || path.join(root, 'build', 'site'));
const port = process.env.PORT !== undefined ? Number(process.env.PORT) : 8080;
const host = process.env.HOST || '127.0.0.1';

export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; " +
  "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'";

const MIME = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8', '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon',
  '.woff2': 'font/woff2', '.woff': 'font/woff', '.ttf': 'font/ttf', '.txt': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8', '.map': 'application/json; charset=utf-8',
};

function send(res, status, body, type = 'text/plain; charset=utf-8') {
  res.writeHead(status, { 'Content-Type': type, 'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff' });
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

export function createServer() {
  return http.createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed');
    const raw = (req.url || '/').split('?')[0].split('#')[0];
    // Refuse any ".." segment outright, encoded or not, before normalising.
    if (/(^|\/|%2f|%5c)\.\.(\/|%2f|%5c|$)/i.test(raw) || /%2e%2e/i.test(raw)) return send(res, 403, 'forbidden');
    let file = resolve(raw);
    if (!file) return send(res, 403, 'forbidden');
    fs.stat(file, (err, st) => {
      if (!err && st.isDirectory()) { file = path.join(file, 'index.html'); st = fs.existsSync(file) ? fs.statSync(file) : null; }
      if (err || !st || !st.isFile()) return send(res, 404, 'not found');
      const type = MIME[path.extname(file).toLowerCase()] || 'application/octet-stream';
      res.writeHead(200, { 'Content-Type': type, 'Content-Length': st.size, 'Content-Security-Policy': CSP,
        'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' });
      if (req.method === 'HEAD') return res.end();
      fs.createReadStream(file).pipe(res);
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
