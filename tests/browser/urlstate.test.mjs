// Every widget survives any URL state: each chapter page (from the chapter records) is loaded with
// hostile and random values in the URL keys its widgets read (a calculator's `<key>.<param>`, a
// chapter widget's `<key>.<input>` as it declares them in data-sb-keys, and the page chip), and
// every widget must still show either its output or a clear error; no page error, no console
// error, no script of the values run. Needs the wasm build and chromium-headless-shell.
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';
import { settled, widgetStates } from './widgetstate.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

// What a careless or hostile link may carry. Scripts would set window.__sbPwned if they ran.
const HOSTILE = [
  '', ' ', 'x', '-1', '0', '-0', '1.5', 'NaN', 'Infinity', '-Infinity', '1e999', '-1e308', '5e-324',
  '99999999999999999999999', '1,5', '0x10', 'ünïcødé ✓ 漢字 🚀', '\u202eevil', '\u0000', '%',
  '<script>window.__sbPwned=1</script>', '"><img src=x onerror="window.__sbPwned=1">',
  'javascript:window.__sbPwned=1', '__proto__', 'constructor', '{}', '[]', 'null', 'undefined',
  '0,0,0,0,0,0,0,0', '4x4x4x4', 'A[I_X, I_X]',
];
// Long values (up to about 5 KB encoded) go into one key at a time: in every key at once they make
// an address longer than a server takes (Node answers 431 past 16 KB of headers).
const LONG = ['x'.repeat(5000), '<b>'.repeat(500), '漢'.repeat(500), '9'.repeat(400)];

// A small seeded generator, so that a failure reruns the same.
function rng(seed) {
  let s = seed >>> 0;
  return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 2 ** 32; };
}
const PIECES = ['0', '1', '4', '16', 'x', ',', ' ', '-', '.', 'e', '9', '_', '{', '}', '[', ']', 'X', 'Y',
  'I', 'J', 'GB', 'ms', '%', 'ü', '漢', '<', '>', '"', "'", '&', '=', '?', '#', '/', '\\'];
function randomValue(next) {
  const n = Math.floor(next() * 12);
  let v = '';
  for (let i = 0; i < n; i++) v += PIECES[Math.floor(next() * PIECES.length)];
  return next() < 0.1 ? HOSTILE[Math.floor(next() * HOSTILE.length)] : v;
}

// The URL keys the widgets of a page read, found on the page itself.
async function urlKeys(page) {
  return page.evaluate(() => {
    const keys = new Set(['chip']);
    for (const c of document.querySelectorAll('sb-calc')) for (const p of c.info?.params || []) keys.add(`${c.key}.${p.name}`);
    for (const w of document.querySelectorAll('[data-sb-keys]')) {
      for (const k of w.dataset.sbKeys.split(' ')) keys.add(`${w.dataset.sbWidget}.${k}`);
    }
    return [...keys];
  });
}

function query(state) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(state)) q.set(k, v);
  return q.toString();
}

// Navigates `tab` to the page with `state` in its URL and checks every widget.
async function check(tab, slug, state, what) {
  const where = `${slug}.html?${query(state)}`;
  try {
    const page = await site.open(tab, where);
    await settled(page);
    for (const w of await widgetStates(page)) {
      if (w.state === 'ok') continue;
      assert.ok(w.message.trim().length > 0, `${slug}.html with ${what}: ${w.name} shows neither its output nor an error`);
    }
    assert.equal(await page.evaluate(() => window.__sbPwned), undefined, `${slug}.html with ${what}: a script ran`);
    site.assertClean();
  } catch (e) {
    throw new Error(`${String(e.message).slice(0, 1500)}\n  (${where.slice(0, 300)})`);
  }
}

async function chapterSlugs() {
  const page = await site.page('index.html');
  const chapters = await page.evaluate(async () => (await import('./lib/core.js')).chapters());
  await page.close();
  return chapters.map((c) => c.slug);
}

// Every page reads its URL through the same code (core.js's widget state, a calculator's field
// parser), so each page gets a sample, not the product of keys and values: that product was over
// a thousand page loads (36 minutes in CI). Each page is opened in one tab, navigated from state to
// state: in each of six rounds every key holds a hostile value, a different one per key and round
// (so the values that attack markup and scripts reach every widget); then a hostile value in a
// few single keys with the others left alone, two of them beside a long value in another key; and
// random states. The seed is fixed, so a failure reruns the same.
test('every widget survives hostile and random values in the URL keys it reads', async () => {
  const slugs = await chapterSlugs();
  assert.ok(slugs.length > 0);
  const next = rng(20260713);
  const pick = (list, n) => Array.from({ length: Math.min(n, list.length) }, () => list[Math.floor(next() * list.length)]);
  for (const [p, slug] of slugs.entries()) {
    await site.reset();
    const tab = await site.page(`${slug}.html`);
    await settled(tab);
    const keys = await urlKeys(tab);
    for (let round = 0; round < 6; round++) {
      const state = Object.fromEntries(keys.map((k, i) => [k, HOSTILE[(i * 7 + round * 5 + p) % HOSTILE.length]]));
      await check(tab, slug, state, `hostile round ${round}`);
    }
    // A long value in one key (all at once would pass a server's header limit) beside a hostile
    // value in another, the other keys left alone; then one hostile value alone.
    const longs = pick(keys, 2);
    for (const [i, k] of pick(keys, 3).entries()) {
      const v = HOSTILE[Math.floor(next() * HOSTILE.length)];
      const state = { [k]: v };
      const lk = i < longs.length ? (longs[i] !== k ? longs[i] : keys.find((x) => x !== k)) : undefined;
      if (lk) state[lk] = LONG[(p * 2 + i) % LONG.length];
      await check(tab, slug, state, `${k} = ${JSON.stringify(v.slice(0, 40))}${lk ? `, ${lk} = a long value` : ''}`);
    }
    for (let round = 0; round < 3; round++) {
      const state = {};
      for (const k of keys) if (next() < 0.5) state[k] = randomValue(next);
      await check(tab, slug, state, `random state ${JSON.stringify(state).slice(0, 200)}`);
    }
    await tab.close();
  }
});

test('the slice explorer survives a bad wraparound in its URL (tpus.html?slice.wrap=x)', async () => {
  const page = await site.page('tpus.html?slice.wrap=x');
  await settled(page);
  const [explorer] = (await widgetStates(page)).filter((w) => w.name.startsWith('sb-slice-explorer'));
  assert.equal(explorer.state, 'ok', explorer.message);
  // The explorer fell back to the chip's rule and drew the torus.
  assert.equal(await page.locator('sb-slice-explorer select[name="wrap"]').inputValue(), 'auto');
  assert.ok(await page.locator('sb-slice-explorer .sb-torus svg circle').count() > 0);
  await page.close();
});
