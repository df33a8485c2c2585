// `npm run bench`, part 3: the longest task on each chapter page's main thread (the target: none
// over 50 ms, whatever a link or an input asks). Headless Chromium, the browser's own Long Tasks
// API (a PerformanceObserver of 'longtask', which reports every task over 50 ms). Per page:
// - load: from navigation until every widget has settled;
// - worst input: every number field of every calculator typed at its declared minimum and then its
//   maximum (as a reader types, one field at a time, the default restored after, the calculator's
//   derivation open), the field and value whose answer took the longest task;
// - model switch: where the page has the model picker, three models chosen in turn;
// - the links the issue names, loaded as they are.
// SB_TASK_PAGES=training,inference limits the pages (by slug). SB_TASK_SITES=dirA,dirB compares two
// built sites side by side in one browser, page by page, the order of the two alternating.
// SB_TASK_CPU=1 measures each task by its thread time from a trace (every task, not only those over
// 50 ms): the figure that holds on a machine whose cores are shared.
import { startSite, buildSite, startServer, freePort } from '../tests/browser/harness.mjs';
import { chapterPages } from '../tests/browser/pageload.mjs';
import { settled } from '../tests/browser/widgetstate.mjs';

const LIMIT_MS = 50;
const LINKS = ['training.html?training.plan.chip=tpu7x&training.plan.chips=8640&training.plan.L=1000'];

// SB_TASK_CPU=1: each task's time on the main thread's CPU (a trace's thread time) in place of its
// wall time. On a machine shared with builds, a task's wall time is mostly waiting for a core.
const CPU = process.env.SB_TASK_CPU === '1';
const CATEGORIES = 'toplevel,disabled-by-default-devtools.timeline';
const traces = new WeakMap();  // page -> {cdp, events}

async function traceStart(page) {
  let t = traces.get(page);
  if (!t) {
    t = { cdp: await page.context().newCDPSession(page), events: [] };
    t.cdp.on('Tracing.dataCollected', (e) => t.events.push(...e.value));
    traces.set(page, t);
  }
  t.events = [];
  await t.cdp.send('Tracing.start', { categories: CATEGORIES });
}

// The renderers' main-thread tasks since traceStart, by thread time (ms); tracing starts again.
async function traceTake(page) {
  const t = traces.get(page);
  const done = new Promise((resolve) => t.cdp.once('Tracing.tracingComplete', resolve));
  await t.cdp.send('Tracing.end');
  await done;
  const main = new Set(t.events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
    .map((e) => `${e.pid}:${e.tid}`));
  const cpu = t.events.filter((e) => e.ph === 'X' && e.name === 'ThreadControllerImpl::RunTask' && main.has(`${e.pid}:${e.tid}`))
    .map((e) => (e.tdur ?? e.dur) / 1000);
  await traceStart(page);
  return cpu;
}

// The longest task since the last call (0: none over 50 ms), and the count over the limit.
const take = async (page) => {
  const t = CPU ? await traceTake(page) : await page.evaluate(() => {
    const t = window.__sbTasks || [];
    window.__sbTasks = [];
    return t;
  });
  return { longest: t.length ? Math.max(...t) : 0, over: t.filter((x) => x > LIMIT_MS).length };
};

// A new tab on `rel` of a site ({context, url}), its tasks watched from before the navigation.
async function open(site, rel) {
  const page = await site.context.newPage();
  if (CPU) await traceStart(page);
  await page.goto(new URL(rel, site.url).href, { waitUntil: 'load' });
  return page;
}
const ms = (x) => (x ? `${Math.round(x)} ms` : `none over ${LIMIT_MS}`);

// Every number field of every calculator: [{i (the calculator's index on the page), calc, field, min,
// max, def}].
const numberFields = (page) => page.evaluate(() => {
  const out = [];
  for (const [i, c] of [...document.querySelectorAll('sb-calc')].entries()) {
    for (const p of c.info?.params || []) {
      if (p.kind !== 'number' || !Number.isFinite(p.min) || !Number.isFinite(p.max)) continue;
      if (!c.querySelector(`.sb-field[data-field="${p.name}"] input`)) continue;
      out.push({ i, calc: c.key || c.getAttribute('name'), field: p.name, min: p.min, max: p.max, def: p.default_text ?? String(p.default) });
    }
  }
  return out;
});

// The value goes in as a keystroke's does: the field's text changes and an `input` event follows,
// in the page. Not playwright's fill(): its checks before typing (is the field visible, where is
// it) made the browser lay out the whole page at once inside the measured task. On inference's
// moe-calc (price = 10000, every <details> open) the longest task was 51 to 81 ms with fill() and
// 41 to 46 ms this way, three rounds each (bench/NOTES.md, "Eleventh pass").
async function typeInto(page, f, value) {
  const typed = await page.evaluate(([i, field, v]) => {
    const input = document.querySelectorAll('sb-calc')[i]?.querySelector(`.sb-field[data-field="${field}"] input`);
    if (!input) return false;
    input.value = v;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    return true;
  }, [f.i, f.field, String(value)]);
  if (!typed) throw new Error(`${f.calc}.${f.field}: no field to type into`);
  await settled(page);
}

async function benchPage(site, file) {
  const page = await open(site, file);
  await settled(page);
  const load = await take(page);
  // Folded configuration fields are fields too: every <details> but the derivations is opened (what
  // that costs is left out of the inputs' figures). A calculator's own derivation is opened while
  // its fields are typed, as a reader watching it would: each answer draws it again.
  await page.evaluate(() => { for (const d of document.querySelectorAll('main details:not(.sb-derivation)')) d.open = true; });
  await settled(page);
  await take(page);
  const derivation = (i, open) => page.evaluate(([i, open]) => {
    const d = document.querySelectorAll('sb-calc')[i]?.querySelector(':scope > .sb-derivation');
    if (d) d.open = open;
  }, [i, open]);
  let worst = { longest: 0, what: '' };
  let shown = -1;
  for (const f of await numberFields(page)) {
    if (f.i !== shown) {
      await derivation(shown, false);
      await derivation((shown = f.i), true);
      await settled(page);
      await take(page);
    }
    for (const v of [f.min, f.max]) {
      try {
        await typeInto(page, f, v);
      } catch {
        continue;  // a field this page does not show as typed
      }
      const t = await take(page);
      if (t.longest > worst.longest) worst = { longest: t.longest, what: `${f.calc}.${f.field} = ${v}` };
    }
    await typeInto(page, f, f.def).catch(() => {});
    await take(page);
  }
  let model = null;
  const picker = page.locator('sb-model-picker select').first();
  if (await picker.count()) {
    model = { longest: 0 };
    const ids = (await picker.locator('option').evaluateAll((os) => os.map((o) => o.value))).filter(Boolean);
    for (const id of [ids.at(-1), ids[Math.floor(ids.length / 2)], ids[0]]) {
      await picker.selectOption(id);
      await settled(page);
      model.longest = Math.max(model.longest, (await take(page)).longest);
    }
  }
  await page.close();
  return { load, worst, model };
}

// The longest task while the page at `rel` loads until every widget has settled.
async function benchLink(site, rel) {
  const page = await open(site, rel);
  await settled(page);
  const t = await take(page);
  await page.close();
  return t;
}

const watchTasks = (context) => context.addInitScript(() => {
  window.__sbTasks = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__sbTasks.push(e.duration); })
    .observe({ type: 'longtask', buffered: true });
});

export async function benchTasks() {
  const sites = (process.env.SB_TASK_SITES || '').split(',').filter(Boolean);
  if (sites.length === 2) return compareSites(sites);
  await buildSite();
  const site = await startSite({ optimizing: true });
  await watchTasks(site.context);
  const only = (process.env.SB_TASK_PAGES || '').split(',').filter(Boolean);
  const pages = chapterPages(site.dir).filter((p) => !only.length || only.includes(p.file.replace('.html', '')));
  try {
    console.log(`the longest main-thread task per chapter page (target: none over ${LIMIT_MS} ms), headless Chromium, ` +
                `${CPU ? 'thread time from a trace' : 'Long Tasks API'}; every number field typed at its minimum and its maximum`);
    console.log('  page'.padEnd(24) + 'load'.padStart(16) + 'worst input'.padStart(16) + '  (field = value)'.padEnd(44) +
                'model switch'.padStart(16));
    let all = 0;
    for (const { file } of pages) {
      const r = await benchPage(site, file);
      const top = Math.max(r.load.longest, r.worst.longest, r.model?.longest || 0);
      all = Math.max(all, top);
      console.log(`  ${file}`.padEnd(24) + ms(r.load.longest).padStart(16) + ms(r.worst.longest).padStart(16) +
                  `  ${r.worst.what}`.padEnd(44) + (r.model ? ms(r.model.longest) : '(no picker)').padStart(16));
    }
    for (const link of LINKS) {
      const t = await benchLink(site, link);
      all = Math.max(all, t.longest);
      console.log(`  ${link}: ${ms(t.longest)}`);
    }
    console.log(`  longest task anywhere: ${ms(all)} ${all <= LIMIT_MS ? '(meets the target)' : '(over the target)'}`);
  } finally {
    await site.close();
  }
}

// Two built sites, each on a server of its own, in one browser: per page, both sites' figures in
// turn (A then B on even pages, B then A on odd ones), so that the machine's load weighs on both.
async function compareSites(dirs) {
  process.env.SB_SKIP_BUILD = '1';
  process.env.SB_SITE = dirs[0];
  const a = await startSite({ optimizing: true });
  const server = await startServer(await freePort(), dirs[1]);
  const b = { context: a.context, url: server.url };
  await watchTasks(a.context);
  const only = (process.env.SB_TASK_PAGES || '').split(',').filter(Boolean);
  const pages = chapterPages(dirs[0]).filter((p) => !only.length || only.includes(p.file.replace('.html', '')));
  const pair = async (i, fn) => {
    const order = i % 2 ? [b, a] : [a, b];
    const out = new Map();
    for (const s of order) out.set(s, await fn(s));
    return [out.get(a), out.get(b)];
  };
  const both = (x, y) => `${ms(x)} -> ${ms(y)}`;
  try {
    console.log(`the longest main-thread task${CPU ? ' (thread time)' : ''}, A (${dirs[0]}) -> B (${dirs[1]}), side by side`);
    console.log('  page'.padEnd(24) + 'load'.padStart(28) + 'worst input'.padStart(28) + 'model switch'.padStart(28));
    for (const [i, { file }] of pages.entries()) {
      const [ra, rb] = await pair(i, (s) => benchPage(s, file));
      console.log(`  ${file}`.padEnd(24) + both(ra.load.longest, rb.load.longest).padStart(28) +
                  both(ra.worst.longest, rb.worst.longest).padStart(28) +
                  (ra.model ? both(ra.model.longest, rb.model.longest) : '(no picker)').padStart(28));
      console.log(`      worst inputs: A ${ra.worst.what || '-'}; B ${rb.worst.what || '-'}`);
    }
    for (const [i, link] of LINKS.entries()) {
      for (let k = 0; k < 3; k++) {
        const [ta, tb] = await pair(i + k, (s) => benchLink(s, link));
        console.log(`  ${link}: ${both(ta.longest, tb.longest)}`);
      }
    }
  } finally {
    server.child.kill();
    await a.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchTasks();
