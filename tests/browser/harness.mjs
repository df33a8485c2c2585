// Browser-test harness: builds the site, serves it with web/serve.mjs on a free port, drives
// Debian's Chromium through playwright-core, and fails a test on any console error, page error,
// failed request or Content-Security-Policy violation. Under tests/browser/run.mjs (npm test) the
// site is built and served once and one Chromium serves every file.
//   const s = await startSite(); const page = await s.page('index.html'); ...; await s.close();
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// Screenshots for a person to look at, taken where SB_SHOTS names a folder
// (SB_SHOTS=/tmp/shots npm run test:browser); none otherwise, as in `npm test`: a full-page picture
// costs a second or more, and nobody looks at CI's.
export const shots = process.env.SB_SHOTS || '';
// Two builds of one Chromium (the same Blink, V8 and fonts; Debian's chromium and
// chromium-headless-shell packages). The tests drive the headless shell: it has no browser window
// around the page (no tab strip, toolbar or omnibox to keep up on every navigation), and the
// browser layer's 82 tests took 303 s on it against 600 s on the full browser, one run after the
// other on this machine (bench/NOTES.md, "Eleventh pass"). The bench keeps the full browser, as a
// reader has it. SB_CHROMIUM names another binary for both.
export const CHROMIUM = process.env.SB_CHROMIUM || '/usr/bin/chromium';
export const TEST_CHROMIUM = process.env.SB_CHROMIUM || '/usr/bin/chromium-headless-shell';
// The binary to start, or an error that says how to get it (a machine set up before the tests
// moved to the headless shell lacks it).
export function chromiumAt(file) {
  if (!fs.existsSync(file)) {
    throw new Error(`${file} is missing: scripts/setup.sh installs it (Debian's chromium and chromium-headless-shell), or SB_CHROMIUM names another Chromium`);
  }
  return file;
}
export const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-quic', '--disable-dev-shm-usage'];
// The tests' Chromium compiles wasm with V8's baseline compiler alone. Its optimising tier
// recompiled both of a page's modules on every load, on threads of its own: a navigation of the
// training page cost Chromium 2.2 CPU seconds with it, 1.35 without (bench/NOTES.md, "Ninth pass").
// The CI layer is CPU-bound, and the answers are the same wasm's. The bench keeps both tiers, as a
// reader's browser has them: startSite({ optimizing: true }); SB_WASM_OPTIMIZE=1 gives the tests
// both tiers too.
export const TEST_FLAGS = process.env.SB_WASM_OPTIMIZE === '1' ? FLAGS : [...FLAGS, '--js-flags=--liftoff-only'];

// The site under test. Each test process assembles its own copy (SB_SITE names the directory;
// by default a fresh temporary one, removed at exit), so a test run never rewrites build/site
// while someone else serves it. SB_SKIP_BUILD=1 serves SB_SITE (or build/site) as it is.
let siteDir = null;
export async function buildSite() {
  if (siteDir) return siteDir;
  if (process.env.SB_SKIP_BUILD === '1') {
    siteDir = path.resolve(process.env.SB_SITE || path.join(root, 'build', 'site'));
    return siteDir;
  }
  const { build } = await import(path.join(root, 'web', 'build.mjs'));
  const own = !process.env.SB_SITE;
  const out = own ? fs.mkdtempSync(path.join(os.tmpdir(), 'sb-test-site-')) : path.resolve(process.env.SB_SITE);
  await build({ quiet: true, out });
  if (own) process.on('exit', () => fs.rmSync(out, { recursive: true, force: true }));
  siteDir = out;
  return siteDir;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

export function startServer(port, dir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'web', 'serve.mjs')], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', SB_SITE: dir }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => { child.kill(); reject(new Error(`server did not start: ${out}`)); }, 10000);
    const onData = (d) => {
      out += d;
      const m = out.match(/http:\/\/[^\s]+\//);
      if (m) { clearTimeout(timer); resolve({ child, url: m[0] }); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => { out += d; });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited (${code}): ${out}`)); });
  });
}

// The shared Chromium (SB_BROWSER_WS) with a context of this file's own, else a Chromium of its own.
async function openBrowser(executablePath, flags) {
  if (process.env.SB_BROWSER_WS) {
    const browser = await chromium.connect(process.env.SB_BROWSER_WS);
    return { browser, context: await browser.newContext({ viewport: { width: 1200, height: 900 } }), userDataDir: null };
  }
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumAt(executablePath), headless: true, args: flags, viewport: { width: 1200, height: 900 },
  });
  return { browser: null, context, userDataDir };
}

// Starts server + browser, or joins the ones tests/browser/run.mjs started for every test file
// (SB_SITE_URL: the served site; SB_BROWSER_WS: the one Chromium, each file in a context of its
// own). Each page() gets a tab of the file's context (its storage shared by the file's tests).
export async function startSite({ optimizing = false } = {}) {
  const dir = await buildSite();
  if (shots) fs.mkdirSync(shots, { recursive: true });
  let child = null, url = process.env.SB_SITE_URL;
  if (!url) ({ child, url } = await startServer(await freePort(), dir));
  let opened;
  try {
    opened = optimizing ? await openBrowser(CHROMIUM, FLAGS) : await openBrowser(TEST_CHROMIUM, TEST_FLAGS);
  } catch (e) {
    child?.kill();
    throw e;
  }
  const { browser, context, userDataDir } = opened;
  const problems = [];
  const aborted = [];  // net::ERR_ABORTED, judged when the test checks (see watch)
  const watch = (page) => {
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console error on ${page.url()}: ${msg.text()}`);
    });
    page.on('pageerror', (err) => problems.push(`page error on ${page.url()}: ${err.message}`));
    // Chromium aborts (net::ERR_ABORTED) whatever is in flight when a test navigates the tab or
    // closes it; that is the test leaving, not the site failing. Such an abort is held back and
    // counts only if the tab is still open on the same document when the test checks.
    let navigations = 0;
    let closed = false;
    page.on('framenavigated', (f) => { if (f === page.mainFrame()) navigations++; });
    page.on('close', () => { closed = true; });
    page.on('requestfailed', (req) => {
      const text = `request failed: ${req.url()} (${req.failure()?.errorText})`;
      if (req.failure()?.errorText !== 'net::ERR_ABORTED') return problems.push(text);
      const at = navigations;
      aborted.push({ text, stillThere: () => !closed && navigations === at });
    });
    page.on('response', (res) => { if (res.status() >= 400) problems.push(`HTTP ${res.status()} for ${res.url()}`); });
  };
  // CSP violations also reach the console, but record them explicitly too.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`);
    });
  });
  context.on('page', watch);
  for (const p of context.pages()) watch(p);

  return {
    url,
    dir,
    context,
    problems,
    // Opens `rel` (relative to the site root) in a new tab and waits for the widgets to settle.
    // With `requests` (an array), the URL of every request the page makes is pushed onto it.
    async page(rel = 'index.html', { requests } = {}) {
      const page = await context.newPage();
      if (requests) page.on('request', (req) => requests.push(req.url()));
      await page.goto(new URL(rel, url).href, { waitUntil: 'load' });
      return page;
    },
    // Navigates an open tab to `rel`: about half the time of a new tab (the renderer and the
    // compiled module stay), for the tests that open one page in many states.
    async open(page, rel) {
      await page.goto(new URL(rel, url).href, { waitUntil: 'load' });
      return page;
    },
    // A fresh reader: clears the site's localStorage (the profile is shared by the tests of a file).
    async reset() {
      const page = await context.newPage();
      // A plain resource of the origin is enough to reach its storage; the browser's own favicon
      // request for it is answered here rather than by a 404.
      await page.route('**/favicon.ico', (r) => r.fulfill({ status: 204, body: '' }));
      await page.goto(new URL('css/site.css', url).href);
      await page.evaluate(() => localStorage.clear());
      await page.close();
    },
    // Throws if anything went wrong in any page so far.
    assertClean() {
      const all = [...problems, ...aborted.filter((a) => a.stillThere()).map((a) => a.text)];
      aborted.length = 0;
      if (all.length) throw new Error(`browser problems:\n  ${all.join('\n  ')}`);
    },
    // A picture for a person to look at, not an assertion: a page too long to take in time on a
    // loaded machine is noted and the test goes on.
    async shot(page, name) {
      if (!shots) return;
      try {
        await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true, timeout: 90000 });
      } catch (e) {
        console.log(`# screenshot ${name} not taken: ${String(e.message).split('\n')[0]}`);
      }
    },
    async close() {
      try {
        await context.close();
        await browser?.close();  // a joined browser: only this connection ends
      } finally {
        child?.kill();
        if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
      }
    },
  };
}

// Clears localStorage for the site origin (fresh reader).
export async function clearStorage(page) {
  await page.evaluate(() => localStorage.clear());
}

// The wasm modules among request URLs: ["scaling-roofline.wasm", ...] (glue .mjs and .wasm).
export function moduleFiles(urls) {
  return urls.map((u) => new URL(u).pathname.split('/').pop()).filter((f) => /\.wasm$|^scaling-.*\.mjs$/.test(f)).sort();
}

// The ids of a chapter's problems, as the site's catalogue lists them.
export async function problemIds(page, chapter) {
  return page.evaluate(async (ch) => {
    const core = await import('./lib/core.js');
    return (await core.problemsOf(ch)).map((p) => p.id);
  }, chapter);
}

// The module's own answer for each slot, so a test types what the model computes: nothing typed in.
export async function modelAnswers(page, id) {
  return page.evaluate(async (pid) => {
    const core = await import('./lib/core.js');
    return (await core.problems(await core.chapterOf(pid))).problem(pid);
  }, id);
}

// Every exercise of a chapter on the page: conceptual ones are checked here (the model answer sits
// behind the reveal button); for the others yields {id, ex, p} with p the module's own answers.
export async function* exercises(page, chapter) {
  const ids = await problemIds(page, chapter);
  assert.ok(ids.length > 0, `the catalogue has ${chapter} problems`);
  for (const id of ids) {
    const ex = page.locator(`sb-exercise[problem="${id}"]`);
    await ex.locator('.sb-actions').waitFor();
    const p = await modelAnswers(page, id);
    assert.equal(p.ok, true, `${id}: ${JSON.stringify(p.error)}`);
    if (!p.slots.length) {
      await ex.locator('button[data-action="reveal"]').click();
      assert.equal(await ex.locator('.sb-model-answer').isVisible(), true, id);
      continue;
    }
    yield { id, ex, p };
  }
}

// Presses an exercise's Check as a reader does. Now and then in CI (on the gpus page once, on the
// tpus page for four exercises in a row, while another file loaded pages) a page stops drawing
// frames for tens of seconds though it answers scripts, and playwright's click waits for frames
// (a button must be "stable"); no local run under load has reproduced it. Where the click stalls
// for 10 s, the stall is logged with what the page says of itself and the button is pressed by its
// DOM event, so that the grading these tests are about is still checked; later presses on that
// page take the DOM event at once while its frames are still stopped (a 1 s probe), not 10 s more.
const stalledPages = new WeakSet();
const framesRun = (ex, ms) => ex.evaluate((wait) => new Promise((done) => {
  const t = setTimeout(() => done(false), wait);
  requestAnimationFrame(() => { clearTimeout(t); done(true); });
}), ms);

export async function pressCheck(ex) {
  const button = ex.locator('button[data-action="check"]');
  const page = ex.page();
  const id = await ex.getAttribute('problem');
  if (!stalledPages.has(page) || await framesRun(ex, 1000)) {
    try {
      await button.click({ timeout: 10000 });
      return;
    } catch (e) {
      if (e.name !== 'TimeoutError') throw e;
    }
    stalledPages.add(page);
    const frames = await framesRun(ex, 2000) ? 'frames run' : 'no frame in 2 s';
    console.log(`# the Check click of ${id} stalled 10 s (visibility ${await ex.evaluate(() => document.visibilityState)}, ${frames}); pressed by its event`);
  } else {
    console.log(`# the Check of ${id}: the page still draws no frame; pressed by its event`);
  }
  await button.dispatchEvent('click');
}

// Every exercise of a chapter whose slots are all numbers or yes/no: types the model's own answers,
// presses Check and asserts each slot is graded correct. Returns how many exercises it graded.
export async function solveEveryExercise(page, chapter) {
  let n = 0;
  for await (const { id, ex, p } of exercises(page, chapter)) {
    const want = {};
    for (const s of p.slots) {
      await typeModelAnswer(ex, s, p.answers[s.name]);
      want[s.name] = 'correct';
    }
    await pressCheck(ex);
    const got = Object.fromEntries(await ex.locator('[data-slot]').evaluateAll((els) =>
      els.map((e) => [e.dataset.slot, e.querySelector('.sb-slot-verdict').dataset.verdict])));
    assert.deepEqual(got, want, id);
    n++;
  }
  return n;
}

// Types the model's own answer for a number or yes/no slot.
export async function typeModelAnswer(ex, slot, answer) {
  const input = ex.locator(`[name="${slot.name}"]`);
  if (slot.kind === 'bool') await input.selectOption(answer.value ? 'yes' : 'no');
  else await input.fill(String(answer.value));
}
