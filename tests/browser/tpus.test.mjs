// Browser tests of tpus.html: the slice explorer (torus picture, distances, inventory, transfer
// calculator, bad input, shared links) and one working exercise per tpus problem.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { exercises, startSite, typeModelAnswer, pressCheck } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
beforeEach(async () => { await site.reset(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

const EXPLORER = 'sb-slice-explorer';

// Sets chip and shape in the explorer and waits until the picture shows that shape.
async function showSlice(page, chip, shape) {
  const ex = page.locator(EXPLORER);
  await ex.locator('.sb-slice-form select[name="chip"] option').first().waitFor({ state: 'attached' });
  await ex.locator('.sb-slice-form select[name="chip"]').selectOption(chip);
  await ex.locator('.sb-slice-form input[name="shape"]').fill(shape);
  await page.waitForFunction(([sel, s]) => document.querySelector(`${sel} svg[data-dims]`)?.dataset.dims === s, [EXPLORER, shape]);
  return ex;
}

// Wraparound stubs drawn per axis (data-axis on each dashed arc).
async function wrapCounts(ex) {
  return ex.locator('svg[data-dims] [data-wrap]').evaluateAll((els) => {
    const n = [0, 0, 0];
    for (const e of els) n[Number(e.dataset.axis)] += 1;
    return n;
  });
}

const inventoryCell = (ex, label) => ex.locator('.sb-inventory tr', { has: ex.page().locator(`th:text-is("${label}")`) }).locator('td');

test('4x4x4 on v5p wraps on every axis; 2x2x4 on none', async () => {
  const page = await site.page('tpus.html');
  const ex = await showSlice(page, 'v5p', '4x4x4');
  // v5p slices are built from 4x4x4 cubes: every axis wraps when every axis is a multiple of 4.
  assert.equal(await ex.locator('svg[data-dims]').getAttribute('data-wrap-axes'), '1,1,1');
  // Axis 0: a stub at x = 0 and at x = 3 for each of the 4 rows of each of the 4 layers = 2*4*4 = 32.
  // Axis 1: likewise 2 * 4 columns * 4 layers = 32. Axis 2: one arc off the first layer, one off the last = 2.
  assert.deepEqual(await wrapCounts(ex), [32, 32, 2]);
  assert.match(await ex.locator('.sb-slice-summary').textContent(), /axis 0: ring, axis 1: ring, axis 2: ring/);
  assert.equal(await ex.locator('.sb-slice-summary').getAttribute('data-axes'), 'true,true,true');
  // Inventory: 4 * 4 * 4 = 64 chips.
  assert.equal(await inventoryCell(ex, 'chips').textContent(), '64 chips');
  // 4 * 4 * 4 circles drawn.
  assert.equal(await ex.locator('circle[data-chip]').count(), 64);

  // 2x2x4 is not made of whole cubes (2 is not a multiple of 4): no axis wraps.
  await ex.locator('.sb-slice-form input[name="shape"]').fill('2x2x4');
  await page.waitForFunction((sel) => document.querySelector(`${sel} svg[data-dims]`)?.dataset.dims === '2x2x4', EXPLORER);
  assert.equal(await ex.locator('svg[data-dims]').getAttribute('data-wrap-axes'), '0,0,0');
  assert.deepEqual(await wrapCounts(ex), [0, 0, 0]);
  // 2 * 2 * 4 = 16 chips.
  assert.equal(await inventoryCell(ex, 'chips').textContent(), '16 chips');
  assert.equal(await ex.locator('circle[data-chip]').count(), 16);
  await page.close();
});

test('on a v5e 16x16, (0,0) and (15,15) are 2 hops apart and the route is drawn', async () => {
  const page = await site.page('tpus.html');
  const ex = await showSlice(page, 'v5e', '16x16');
  // A full 16x16 v5e pod wraps on both axes; 16 * 16 = 256 chips.
  assert.equal(await ex.locator('svg[data-dims]').getAttribute('data-wrap-axes'), '1,1');
  assert.equal(await inventoryCell(ex, 'chips').textContent(), '256 chips');
  await ex.locator('circle[data-chip="0,0"]').click();
  await ex.locator('.sb-slice-distance', { hasText: 'second chip' }).waitFor();
  await ex.locator('circle[data-chip="15,15"]').click();
  await page.waitForFunction((sel) => document.querySelector(`${sel} .sb-slice-distance`).dataset.hops !== undefined, EXPLORER);
  // With wraparound, 0 and 15 are neighbours on a ring of 16: min(15, 16 - 15) = 1 hop per axis, 1 + 1 = 2.
  assert.equal(await ex.locator('.sb-slice-distance').getAttribute('data-hops'), '2');
  assert.match(await ex.locator('.sb-slice-distance').textContent(), /\(0,0\) → \(15,15\): 2 hop\(s\) \(per axis 1 \+ 1\)/);
  // Both hops cross an edge: each wraparound hop is drawn as two highlighted stubs, 2 * 2 = 4.
  assert.equal(await ex.locator('[data-path-wrap]').count(), 4);
  // The two chips are marked (green sender, red receiver).
  assert.equal(await ex.locator('circle[data-chip="0,0"]').getAttribute('fill'), '#16a34a');
  assert.equal(await ex.locator('circle[data-chip="15,15"]').getAttribute('fill'), '#dc2626');
  // The pair is handed to the transfer calculator.
  const calc = ex.locator('sb-calc[name="tpus.transfer"]');
  await page.waitForFunction(() => document.querySelector('sb-calc[name="tpus.transfer"] input[name="to"]')?.value === '15,15');
  assert.equal(await calc.locator('input[name="from"]').inputValue(), '0,0');
  assert.equal(await calc.locator('input[name="shape"]').inputValue(), '16x16');
  await site.shot(page, 'tpus-route');
  await page.close();
});

test('the transfer calculator names the bottleneck stage', async () => {
  const page = await site.page('tpus.html');
  const ex = await showSlice(page, 'v5p', '4x4x4');
  const calc = ex.locator('sb-calc[name="tpus.transfer"]');
  await page.waitForFunction(() => document.querySelector('sb-calc[name="tpus.transfer"] input[name="shape"]')?.value === '4x4x4');
  // Four stages: DCN, PCIe, HBM and a compute stage.
  await calc.locator('select[name="route"]').selectOption('host_gather_dcn');
  await calc.locator('input[name="flops"]').fill('1e12');
  await page.waitForFunction(() => document.querySelectorAll('sb-calc[name="tpus.transfer"] rect[data-group="serial"]').length === 4);
  // The module's own verdict for what the form holds.
  const r = await page.evaluate(async () => {
    const core = await import('./lib/core.js');
    const sb = await core.scaling('tpus');
    return sb.calc('tpus.transfer', document.querySelector('sb-calc[name="tpus.transfer"]').inputs());
  });
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.equal(r.stages.length, 4);
  // One bar outlined in each Gantt chart (in sequence, overlapped): the module's bottleneck.
  for (const group of ['serial', 'overlapped']) {
    const marked = calc.locator(`rect[data-group="${group}"][data-bottleneck="yes"]`);
    assert.equal(await marked.count(), 1);
    assert.equal(await marked.getAttribute('data-kind'), r.bottleneck.kind);
    assert.ok((await marked.locator('title').textContent()).startsWith(`${r.bottleneck.name}: `));
  }
  assert.equal(await calc.locator('svg.sb-gantt text', { hasText: '(bottleneck)' }).count(), 2);
  // It is the slowest stage.
  const slowest = r.stages.reduce((a, b) => (b.seconds > a.seconds ? b : a));
  assert.equal(slowest.name, r.bottleneck.name);
  assert.match(await calc.locator('.sb-verdict').textContent(), new RegExp(`^Bottleneck: ${r.bottleneck.name.replace(/[()]/g, '\\$&')}`));
  await page.close();
});

test('a bad shape shows its error next to the field', async () => {
  const page = await site.page('tpus.html');
  const ex = await showSlice(page, 'v5p', '4x4x4');
  const field = ex.locator('.sb-slice-form .sb-field[data-field="shape"]');
  await ex.locator('.sb-slice-form input[name="shape"]').fill('4x0x4');
  await page.waitForFunction((sel) => document.querySelector(`${sel} .sb-slice-form .sb-field[data-field="shape"] .sb-field-error`).textContent !== '', EXPLORER);
  const msg = await field.locator('.sb-field-error').textContent();
  // Beside the field's label, the message does not repeat the field's name.
  assert.match(msg, /^axis 1 of '4x0x4' must be at least 1/);
  assert.equal(await ex.locator('.sb-slice-form input[name="shape"]').getAttribute('aria-invalid'), 'true');
  assert.equal(await ex.locator('.sb-slice-form .sb-field[data-field="chip"] .sb-field-error').count(), 0);
  // A 3D shape on the 2D v5e names the field too.
  await ex.locator('.sb-slice-form select[name="chip"]').selectOption('v5e');
  // Choosing v5e swaps the impossible shape for a small 2D one: 4x4.
  await page.waitForFunction((sel) => document.querySelector(`${sel} svg[data-dims]`)?.dataset.dims === '4x4', EXPLORER);
  assert.equal(await field.locator('.sb-field-error').textContent(), '');
  await ex.locator('.sb-slice-form input[name="shape"]').fill('4x4x4');
  await page.waitForFunction((sel) => document.querySelector(`${sel} .sb-slice-form .sb-field[data-field="shape"] .sb-field-error`).textContent !== '', EXPLORER);
  assert.match(await field.locator('.sb-field-error').textContent(), /^TPU v5e has a 2D torus/);
  await site.shot(page, 'tpus-bad-shape');
  // Fixing it clears the error.
  await ex.locator('.sb-slice-form input[name="shape"]').fill('8x8');
  await page.waitForFunction((sel) => document.querySelector(`${sel} svg[data-dims]`)?.dataset.dims === '8x8', EXPLORER);
  assert.equal(await field.locator('.sb-field-error').textContent(), '');
  assert.equal(await ex.locator('.sb-slice-form input[name="shape"]').getAttribute('aria-invalid'), null);
  await page.close();
});

test('a shared link restores the explorer', async () => {
  const page = await site.page('tpus.html');
  const ex = await showSlice(page, 'v5p', '4x4x8');
  await ex.locator('circle[data-chip="0,0,0"]').click();
  await ex.locator('circle[data-chip="3,1,7"]').click();
  await page.waitForFunction(() => /slice\.to=3%2C1%2C7|slice\.to=3,1,7/.test(location.search));
  const hops = await ex.locator('.sb-slice-distance').getAttribute('data-hops');
  // 4x4x8 is whole cubes, so every axis wraps: axis 0: min(3, 4-3) = 1; axis 1: 1; axis 2: min(7, 8-7) = 1; 1+1+1 = 3.
  assert.equal(hops, '3');
  const link = await page.evaluate(() => location.href);
  await page.close();

  const again = await site.page(link.slice(site.url.length));
  const ex2 = again.locator(EXPLORER);
  await again.waitForFunction((sel) => document.querySelector(`${sel} .sb-slice-distance`)?.dataset.hops === '3', EXPLORER);
  assert.equal(await ex2.locator('.sb-slice-form select[name="chip"]').inputValue(), 'v5p');
  assert.equal(await ex2.locator('.sb-slice-form input[name="shape"]').inputValue(), '4x4x8');
  assert.equal(await ex2.locator('svg[data-dims]').getAttribute('data-dims'), '4x4x8');
  assert.equal(await ex2.locator('circle[data-chip="0,0,0"]').getAttribute('fill'), '#16a34a');
  assert.equal(await ex2.locator('circle[data-chip="3,1,7"]').getAttribute('fill'), '#dc2626');
  // 4 * 4 * 8 = 128 chips.
  assert.equal(await inventoryCell(ex2, 'chips').textContent(), '128 chips');
  await again.close();
});

test('every tpus problem has a working exercise', async () => {
  const page = await site.page('tpus.html');
  for await (const { id, ex, p } of exercises(page, 'tpus')) {
    for (const s of p.slots) {
      assert.notEqual(s.kind, 'formula', `${id}.${s.name}: the tpus chapter has no formula slots`);
      await typeModelAnswer(ex, s, p.answers[s.name]);
    }
    await pressCheck(ex);
    const verdicts = await ex.locator('.sb-slot-verdict').evaluateAll((els) => els.map((e) => e.dataset.verdict));
    assert.deepEqual(verdicts, p.slots.map(() => 'correct'), `${id}: ${verdicts}`);
    assert.match(await ex.locator('.sb-summary').textContent(), /^(Correct: done\.|All \d+ correct: done\.)$/, id);
  }
  await page.close();
});
