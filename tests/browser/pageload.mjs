// Loading a page of the built site in Chromium and timing what a reader waits for: shared by the
// page bench (bench/pages.mjs) and the browser test that the modules compile while they download
// (tests/browser/streaming.test.mjs).
import fs from 'node:fs';
import path from 'node:path';

// Installed in every page before its scripts: timestamps (ms since navigation start) of the first
// value in any calculator, of every calculator showing values, and of the wasm instantiation; the
// bytes transferred by the first value; which instantiation path the module took, and the
// Content-Type the streamed wasm came with.
export function probe() {
  const t = (window.__sbBench = { first: null, all: null, wasm: null, streaming: 0, buffer: 0, mime: [] });
  const streaming = WebAssembly.instantiateStreaming;
  WebAssembly.instantiateStreaming = function (source, imports) {
    t.streaming += 1;
    Promise.resolve(source).then((r) => t.mime.push(r.headers.get('content-type')), () => {});
    const p = streaming.call(this, source, imports);
    p.then(() => { t.wasm ??= performance.now(); }, () => {});
    return p;
  };
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = function (bytes, imports) {
    if (!(bytes instanceof WebAssembly.Module)) t.buffer += 1;
    const p = instantiate.call(this, bytes, imports);
    p.then(() => { t.wasm ??= performance.now(); }, () => {});
    return p;
  };
  // A calculator is settled when it shows values or an error (a page chip it cannot take).
  const shows = (c) => c.querySelector('.sb-results tr[data-key] td:not(:empty)');
  const fails = (c) => c.querySelector('.sb-error:not([hidden]):not(:empty), .sb-field-error:not(:empty)');
  const look = () => {
    const calcs = [...document.querySelectorAll('sb-calc')];
    if (t.first === null && calcs.some(shows)) {
      t.first = performance.now();
      // What the page had downloaded by then (the "bytes before the first number"): every
      // response finished so far, headers included, the page's own document too.
      t.firstBytes = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]
        .filter((e) => e.responseEnd > 0 && e.responseEnd <= t.first)
        .reduce((sum, e) => sum + (e.transferSize || 0), 0);
    }
    if (calcs.length && calcs.every((c) => shows(c) || fails(c)) && t.all === null) {
      t.all = performance.now();
      t.failed = calcs.filter((c) => !shows(c)).map((c) => c.getAttribute('name'));
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(look);
  observer.observe(document, { childList: true, subtree: true, characterData: true });
}

// Opens `rel` of the site (tests/browser/harness.mjs startSite()) in a new tab with a cold cache and,
// if given, CDP network conditions; resolves once every calculator settled and the network is idle
// to the probe's figures plus the bytes loaded: raw (decoded), as transferred, and the wasm's.
export async function loadPage(site, rel, { network = null } = {}) {
  const page = await site.context.newPage();
  const cdp = await site.context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  if (network) await cdp.send('Network.emulateNetworkConditions', network);
  const requests = new Map();  // requestId -> {url, raw, wire, encoding, type}
  cdp.on('Network.responseReceived', ({ requestId, response }) => {
    const h = Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k.toLowerCase(), v]));
    requests.set(requestId, { url: response.url, raw: 0, wire: 0, encoding: h['content-encoding'] || 'identity', type: h['content-type'] || '' });
  });
  cdp.on('Network.dataReceived', ({ requestId, dataLength }) => { const r = requests.get(requestId); if (r) r.raw += dataLength; });
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => { const r = requests.get(requestId); if (r) r.wire = encodedDataLength; });
  await page.addInitScript(probe);
  await page.goto(new URL(rel, site.url).href, { waitUntil: 'load' });
  // A page whose calculators never settle (or that has none) is reported with null times.
  await page.waitForFunction(() => window.__sbBench.all !== null, null, { timeout: 30000, polling: 50 }).catch(() => {});
  // ...and every exercise built: the exercises module is requested only once the first module is in,
  // so the network may be idle in between (a test once counted one instantiation of two).
  await page.waitForFunction(() => [...document.querySelectorAll('sb-exercise')].every((e) => e.querySelector('.sb-actions, .sb-error')),
    null, { timeout: 30000, polling: 50 }).catch(() => {});
  await page.waitForLoadState('networkidle');
  const t = await page.evaluate(() => window.__sbBench);
  await page.close();
  const list = [...requests.values()];
  const wasm = list.find((r) => /\.wasm$/.test(new URL(r.url).pathname));
  return {
    ...t,
    raw: list.reduce((s, r) => s + r.raw, 0),
    wire: list.reduce((s, r) => s + r.wire, 0),
    requests: list.length,
    wasmRequests: list.filter((r) => /\.wasm$/.test(new URL(r.url).pathname)).length,
    wasmFiles: [...new Set(list.map((r) => new URL(r.url).pathname.split('/').pop()).filter((f) => f.endsWith('.wasm')))].sort(),
    wasmFile: wasm ? { raw: wasm.raw, wire: wasm.wire, encoding: wasm.encoding, type: wasm.type } : null,
  };
}

// The chapter pages: <slug>.html of each chapter record in the site's catalogue, in part order; a
// catalogue without records gives <chapter>.html of each chapter its calculators name.
export function chapterPages(dir) {
  const catalog = JSON.parse(fs.readFileSync(path.join(dir, 'data', 'catalog.json'), 'utf8'));
  if (Array.isArray(catalog.chapters)) {
    return [...catalog.chapters].sort((a, b) => a.part - b.part).map((r) => ({ id: r.id, file: `${r.slug}.html`, page: !!r.page }));
  }
  const ids = [...new Set(catalog.calculators.map((c) => c.chapter))].sort();
  return ids.map((id) => ({ id, file: `${id}.html` })).filter((p) => fs.existsSync(path.join(dir, p.file)));
}

