// The browser-test layer as npm test runs it: the site is built once (into a temporary folder; npm
// test serves build/site, which its build layer just wrote: SB_SITE=build/site SB_SKIP_BUILD=1) and
// served once, one Chromium is started (a playwright browser server), and every
// tests/browser/*.test.mjs file joins them (harness.mjs reads SB_SITE, SB_SITE_URL, SB_BROWSER_WS),
// two files at a time (the machine has 2 cores, and a file keeps about one of them busy: the
// layer's time is the browser's work). Prints the layer's time.
//   node tests/browser/run.mjs [file ...]     (default: every *.test.mjs here)
import { run } from 'node:test';
import { tap } from 'node:test/reporters';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { root, TEST_CHROMIUM, TEST_FLAGS, chromiumAt, freePort, startServer } from './harness.mjs';

const here = path.join(root, 'tests', 'browser');
// The files that open every page of the site, many times each, take minutes where a chapter's file
// takes seconds: they start first, and the short files fill both lanes while they run, so that no
// lane idles at the end (alphabetical order left the hostile-URL file, 160 s, to run alone last).
const LONG = ['reader', 'urlstate', 'site', 'chips', 'streaming'];
const rank = (f) => { const i = LONG.indexOf(path.basename(f, '.test.mjs')); return i < 0 ? LONG.length : i; };
const files = process.argv.slice(2).length ? process.argv.slice(2)
  : fs.readdirSync(here).filter((f) => f.endsWith('.test.mjs')).sort().sort((a, b) => rank(a) - rank(b)).map((f) => path.join(here, f));
const t0 = performance.now();
const own = !process.env.SB_SITE;
const site = own ? fs.mkdtempSync(path.join(os.tmpdir(), 'sb-test-site-')) : path.resolve(process.env.SB_SITE);
let server = null, browser = null, code = 1;
try {
  if (process.env.SB_SKIP_BUILD !== '1') {
    const { build } = await import(path.join(root, 'web', 'build.mjs'));
    await build({ quiet: true, out: site });
  }
  const tBuilt = performance.now();
  server = await startServer(await freePort(), site);
  browser = await chromium.launchServer({ executablePath: chromiumAt(TEST_CHROMIUM), headless: true, args: TEST_FLAGS });
  Object.assign(process.env, { SB_SITE: site, SB_SKIP_BUILD: '1', SB_SITE_URL: server.url, SB_BROWSER_WS: browser.wsEndpoint() });
  const concurrency = Number(process.env.SB_TEST_CONCURRENCY || 2);
  // node's runner, a process per file, in the order above (`node --test` sorts its files by name).
  code = await new Promise((resolve) => {
    let failed = false;
    const stream = run({ files, concurrency });
    stream.on('test:fail', (e) => { if (!e.todo && !e.skip) failed = true; });
    const out = stream.compose(tap);
    out.pipe(process.stdout, { end: false });
    out.on('end', () => resolve(failed ? 1 : 0));
  });
  const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
  console.log(`browser tests: ${files.length} files, site built in ${s(tBuilt - t0)}, tests ${s(performance.now() - tBuilt)}, ` +
    `layer ${s(performance.now() - t0)} (one build, one server, one Chromium, ${concurrency} files at a time)`);
} finally {
  await browser?.close();
  server?.child.kill();
  if (own) fs.rmSync(site, { recursive: true, force: true });
}
process.exit(code);
