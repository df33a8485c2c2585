// `npm run bench`, part 2: what a reader waits for. Each chapter page (from the site's chapter
// records, data/catalog.json) is loaded in headless Chromium with a cold cache over a throttled
// network (80 ms latency, 2.5 MB/s each way: CDP Network.emulateNetworkConditions), served by
// web/serve.mjs as `npm start` serves it. Reported per page, medians of several loads:
// - first number: from navigation start until a calculator of the page shows its first value;
// - all numbers: until every calculator on the page shows its values (or its error: the page
//   lists those);
// - wasm ready: until the chapter module's instantiation resolved;
// - the bytes transferred before the first number (target: at most 300 KB; the exercises module
//   comes after it);
// - the bytes the page loaded, raw and as transferred (headers included), and what the server did
//   to the wasm (Content-Type, Content-Encoding) and whether the module compiled while it
//   downloaded (WebAssembly.instantiateStreaming) or fell back to compiling the whole buffer.
import { buildSite, startSite } from '../tests/browser/harness.mjs';
import { chapterPages, loadPage } from '../tests/browser/pageload.mjs';

const LOADS = Number(process.env.SB_PAGE_LOADS || 5);
const NETWORK = { offline: false, latency: 80, downloadThroughput: 2.5e6, uploadThroughput: 2.5e6 };

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const ms = (x) => (Number.isFinite(x) ? `${Math.round(x)} ms` : 'never');
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

export async function benchPages() {
  const dir = await buildSite();
  const pages = chapterPages(dir);
  const site = await startSite({ optimizing: true });
  try {
    console.log(`time to first number per chapter page: headless Chromium, cold cache, ${NETWORK.latency} ms latency, ` +
                `${NETWORK.downloadThroughput / 1e6} MB/s (CDP), web/serve.mjs; medians of ${LOADS} loads`);
    console.log('  page'.padEnd(18) + 'first number'.padStart(14) + 'all numbers'.padStart(13) + 'wasm ready'.padStart(12) +
                'before first'.padStart(14) + 'bytes raw'.padStart(12) + 'transferred'.padStart(13) +
                '  first wasm: raw / transferred, served as, compiled');
    for (const { file } of pages) {
      const runs = [];
      for (let i = 0; i < LOADS; i++) runs.push(await loadPage(site, file, { network: NETWORK }));
      const m = (k) => median(runs.map((r) => r[k] ?? Infinity));
      const w = runs[0].wasmFile;
      const how = runs.every((r) => r.streaming > 0 && r.buffer === 0) ? 'while downloading (instantiateStreaming)'
        : runs.some((r) => r.buffer > 0) ? 'after download (ArrayBuffer fallback)' : 'no wasm';
      const served = w ? `${w.type.split(';')[0]}, ${w.encoding}` : '-';
      const before = m('firstBytes');
      console.log(`  ${file}`.padEnd(18) + ms(m('first')).padStart(14) + ms(m('all')).padStart(13) + ms(m('wasm')).padStart(12) +
                  `${Number.isFinite(before) ? kb(before) : '-'} ${before <= 300 * 1024 ? 'ok' : 'OVER'}`.padStart(14) +
                  kb(m('raw')).padStart(12) + kb(m('wire')).padStart(13) +
                  (w ? `  ${kb(w.raw)} / ${kb(w.wire)}, ${served}, ${how}` : '  no wasm'));
      const failed = [...new Set(runs.flatMap((r) => r.failed || []))];
      if (failed.length) console.log(`    (opens with an error, not a number: ${failed.join(', ')})`);
    }
    site.assertClean();
  } finally {
    await site.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchPages();
