// Browser tests of the site shell: home page, the page-wide chip, the hardware tables, the embed
// example, and which wasm module each page loads. Needs build/wasm/bin/scaling-<chapter>.{mjs,wasm}
// (the wasm build) and /usr/bin/chromium.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, moduleFiles } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
beforeEach(async () => { await site.reset(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

// The number at the start of a cell's text: "474.9 FLOPs/B" -> 474.9, "1,024 tokens" -> 1024.
const leadingNumber = (t) => Number(String(t).trim().replace(/,/g, '').match(/^[-+]?[0-9.]+(e[-+]?\d+)?/i)[0]);

test('home page lists the twelve chapters, three of them live, with progress', async () => {
  const requests = [];
  const page = await site.page('index.html', { requests });
  const chapters = page.locator('.sb-chapter');
  assert.equal(await chapters.count(), 12);  // Parts 1-12 of the book
  const live = await page.locator('.sb-chapter.sb-live a.sb-chapter-title').allTextContents();
  assert.deepEqual(live, ['All About Rooflines', 'How to Think About TPUs', 'Sharded Matrices and How to Multiply Them']);
  assert.equal(await page.locator('.sb-chapter.sb-coming').count(), 9);  // 12 - 3 live
  // Progress comes from the catalogue: a fresh reader has solved none of the roofline problems.
  const progress = page.locator('[data-progress="roofline"]');
  await page.waitForFunction(() => document.querySelector('[data-progress="roofline"]').textContent !== '');
  assert.match(await progress.textContent(), /^0 of \d+ solved$/);
  // The catalogue and the chip picker come from the site's JSON files: no wasm module at all.
  await page.waitForFunction(() => document.querySelector('#sb-page-chip')?.options.length > 0);
  assert.ok(requests.some((u) => u.endsWith('/data/catalog.json')));
  assert.ok(requests.some((u) => u.endsWith('/data/chips.json')));
  assert.deepEqual(moduleFiles(requests), []);
  await site.shot(page, 'home');
  await page.close();
});

test('solving an exercise shows up in the home page progress', async () => {
  const page = await site.page('roofline.html');
  const ex = page.locator('sb-exercise[problem="roofline.Q2"]');
  // b_crit = b_w * I_hw / 2 = 1 B * (1.97e14 / 8.2e11) / 2 = 240.24 / 2 = 120.12 tokens.
  await ex.locator('input[name="b_crit"]').fill('120');
  await ex.locator('button[data-action="check"]').click();
  await ex.locator('.sb-slot-verdict[data-verdict="correct"]').waitFor();
  await page.goto(new URL('index.html', site.url).href);
  await page.waitForFunction(() => /^[1-9]\d* of \d+ solved$/.test(document.querySelector('[data-progress="roofline"]').textContent));
  await page.close();
});

test('the chip choice persists through the URL and across pages', async () => {
  const page = await site.page('index.html?chip=h100');
  const picker = page.locator('#sb-page-chip');
  await page.waitForFunction(() => document.querySelector('#sb-page-chip')?.value === 'h100');
  // Choosing another chip rewrites the URL...
  await picker.selectOption('v5p');
  assert.match(page.url(), /[?&]chip=v5p(&|$)/);
  // ...and a page opened without the query remembers it (localStorage).
  await page.goto(new URL('roofline.html', site.url).href);
  await page.waitForFunction(() => document.querySelector('#sb-page-chip')?.value === 'v5p');
  // Every calculator with a chip input follows the page chip.
  const calcChip = page.locator('sb-calc[name="roofline.matmul"] select[name="chip"]');
  await calcChip.waitFor();
  assert.equal(await calcChip.inputValue(), 'v5p');
  await picker.selectOption('v5e');
  await page.waitForFunction(() => document.querySelector('sb-calc[name="roofline.matmul"] select[name="chip"]').value === 'v5e');
  await page.close();
});

test('hardware page shows every chip with sources, and "use this chip" sets the page chip', async () => {
  const requests = [];
  const page = await site.page('hardware.html', { requests });
  await page.locator('.sb-chip-kind').first().waitFor();
  const want = await page.evaluate(async () => {
    const core = await import('./lib/core.js');
    return (await core.chipTable()).chips.map((c) => ({ id: c.id, specs: Object.keys(c.specs).length }));
  });
  assert.ok(want.length >= 2);
  for (const c of want) {
    const col = page.locator(`.sb-specs thead th[data-chip="${c.id}"]`);
    assert.equal(await col.count(), 1, `column for ${c.id}`);
    // One cell per figure the chip has; each carries its source as a numbered reference.
    const cells = page.locator(`.sb-specs tbody td[data-chip="${c.id}"]:not(.sb-muted)`);
    assert.equal(await cells.count(), c.specs, `figures of ${c.id}`);
    assert.equal(await page.locator(`.sb-specs tbody td[data-chip="${c.id}"] sup.sb-src`).count(), c.specs, `sources of ${c.id}`);
  }
  assert.ok(await page.locator('.sb-sources li').count() >= 2);
  // v5e's HBM bandwidth is 8.2e11 B/s in the tables: shown as 820 GB/s.
  const hbm = await page.locator('.sb-specs tr[data-spec="hbm_bw"] td[data-chip="v5e"]').textContent();
  assert.match(hbm, /^820 GB\/s/);
  await page.locator('button.sb-use-chip[data-chip="h100"]').click();
  assert.equal(await page.locator('#sb-page-chip').inputValue(), 'h100');
  assert.match(page.url(), /[?&]chip=h100(&|$)/);
  assert.equal(await page.locator('button.sb-use-chip[data-chip="h100"]').textContent(), 'in use');
  assert.deepEqual(moduleFiles(requests), []);  // the tables come from data/chips.json
  await site.shot(page, 'hardware');
  await page.close();
});

test('the roofline page loads the roofline module and no other', async () => {
  const requests = [];
  const page = await site.page('roofline.html', { requests });
  // Every calculator and exercise of the page is up, each computed by the module.
  await page.locator('sb-calc[name="roofline.matmul"] tr[data-key="intensity"]').waitFor();
  await page.waitForFunction(() => {
    const ex = [...document.querySelectorAll('sb-exercise')];
    return ex.length > 0 && ex.every((e) => e.querySelector('.sb-actions'));
  });
  assert.deepEqual(moduleFiles(requests), ['scaling-roofline.mjs', 'scaling-roofline.wasm']);
  // KaTeX loads when a formula is first shown, not with the page (web/lib/format.js).
  const katexLoaded = () => requests.some((u) => u.endsWith('/katex.mjs'));
  assert.equal(katexLoaded(), false);
  await page.locator('sb-calc[name="roofline.matmul"] .sb-derivation summary').click();
  await page.locator('sb-calc[name="roofline.matmul"] .sb-derivation .katex').first().waitFor();
  assert.equal(katexLoaded(), true);
  await page.close();
});

test('the embed example shows a calculator result and an exercise from one script tag', async () => {
  const requests = [];
  const page = await site.page('embed-example.html', { requests });
  assert.equal(await page.locator('script').count(), 1);
  const cell = page.locator('sb-calc[name="roofline.matmul"] tr[data-key="intensity"] td');
  await cell.waitFor();
  // Defaults B=512, D=8192, F=32768, bf16 (2 B) everywhere:
  // FLOPs = 2*512*8192*32768 = 274,877,906,944
  // bytes = 2*512*8192 + 2*8192*32768 + 2*512*32768 = 8,388,608 + 536,870,912 + 33,554,432 = 578,813,952
  // I = 274,877,906,944 / 578,813,952 = 474.9 FLOPs/B
  assert.ok(Math.abs(leadingNumber(await cell.textContent()) - 474.9) < 0.05);
  // v5e: I_hw = 1.97e14 / 8.2e11 = 240.2 < 474.9, so compute-bound.
  assert.equal(await page.locator('sb-calc .sb-verdict').textContent(), 'compute-bound');
  const ex = page.locator('sb-exercise[problem="roofline.Q2"]');
  await ex.locator('input[name="b_crit"]').waitFor();
  assert.match(await ex.locator('h3').textContent(), /roofline\.Q2/);
  // 240 is twice the 120.12 of the model (bf16 bytes assumed for int8 weights): wrong, with the factor-2 hint.
  await ex.locator('input[name="b_crit"]').fill('240');
  await ex.locator('button[data-action="check"]').click();
  await ex.locator('.sb-slot-verdict[data-verdict="wrong"]').waitFor();
  assert.notEqual((await ex.locator('.sb-slot-hint').textContent()).trim(), '');
  // The derivation renders with KaTeX.
  await page.locator('sb-calc .sb-derivation summary').click();
  await page.locator('sb-calc .sb-derivation .katex').first().waitFor();
  // Both elements found their chapter's module by themselves: roofline's, once.
  assert.deepEqual(moduleFiles(requests), ['scaling-roofline.mjs', 'scaling-roofline.wasm']);
  await site.shot(page, 'embed');
  await page.close();
});
