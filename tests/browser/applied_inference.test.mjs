// Browser tests of applied-inference.html: the dtype table of the slices calculator shows the
// module's numbers and follows the slice factor and the page's model; the calculators and the
// exercises agree on the same inputs; a GPU page chip makes every calculator serve on a set of
// GPUs; every problem has a working exercise; the page fits 390 px.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, solveEveryExercise } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
beforeEach(async () => { await site.reset(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

const CALCS = ['applied-inference.kv', 'applied-inference.slices', 'applied-inference.servers', 'applied-inference.cost'];
const SLICES = 'sb-calc[name="applied-inference.slices"]';
const response = (page, name) => page.evaluate((n) => document.querySelector(`sb-calc[name="${n}"]`).response, name);
const ready = (page, name) => page.waitForFunction((n) => document.querySelector(`sb-calc[name="${n}"]`)?.response, name);

test('the dtype table shows the module\'s slices and follows the slice factor and the model', async () => {
  const page = await site.page('applied-inference.html');
  await page.locator(`${SLICES} .sb-ai-table tr[data-dtype="int4"]`).waitFor();
  const r = await response(page, 'applied-inference.slices');
  // LLaMA 3-70B from its config: bf16 on a 4x4, int8 on 8 chips, int4 on a 2x2, 42 caches of 8k each.
  assert.deepEqual(r.rows.map((w) => [w.dtype, w.chips, w.B_max]), [['bf16', 16, 42], ['int8', 8, 42], ['int4', 4, 42]]);
  assert.match(await page.locator(`${SLICES} tr[data-dtype="int4"] td`).first().textContent(), /2x2 \(4\)/);
  // Twice the chips: bf16 on 32 holds 138 caches.
  await page.locator(`${SLICES} input[name="slice_factor"]`).fill('2');
  await page.waitForFunction((sel) => document.querySelector(sel).response?.values?.B_bf16?.value === 138, SLICES);
  // Another model of the table: LLaMA 3-8B's int8 weights fit one chip.
  await page.locator(`${SLICES} [name="model"]`).selectOption('llama-3-8b');
  await page.waitForFunction((sel) => document.querySelector(sel).response?.inputs?.model === 'llama-3-8b', SLICES);
  assert.equal((await response(page, 'applied-inference.slices')).ok, true);
  await page.close();
});

test('the calculators and the exercises agree on the same inputs', async () => {
  const page = await site.page('applied-inference.html');
  for (const name of CALCS) await ready(page, name);
  // The KV calculator at the chapter's S1 setting (its default) gives S1's KV bytes per token.
  const kv = await response(page, 'applied-inference.kv');
  const s1 = await page.evaluate(async () => {
    const core = await import('./lib/core.js');
    const sb = await core.problems('applied_inference');
    return sb.problem('applied-inference.S1');
  });
  assert.equal(kv.values.kv_tok.value, s1.answers.kv_bytes_per_token.value);
  // At S2's batch and context, the calculator's caches are S2's.
  const calc = page.locator('sb-calc[name="applied-inference.kv"]');
  await calc.locator('input[name="B"]').fill('32');
  await calc.locator('input[name="S"]').fill('8192');
  await page.waitForFunction(() => document.querySelector('sb-calc[name="applied-inference.kv"]').response?.inputs?.S === 8192);
  const s2 = await page.evaluate(async () => (await (await import('./lib/core.js')).problems('applied_inference')).problem('applied-inference.S2'));
  assert.equal((await response(page, 'applied-inference.kv')).values.kv_batch.value, s2.answers.kv_bytes_total.value);
  // The servers calculator with the chapter's S12 figures' batch: prefill over step gives its ratio
  // (the exercise's givens are the book's times, so compare the rule, not the model's count).
  const sv = await response(page, 'applied-inference.servers');
  assert.ok(Math.abs(sv.values.ratio.value - sv.values.prefill.value * 32 / (sv.values.step.value * 512)) < 1e-9 * sv.values.ratio.value);
  await page.close();
});

test('on a GPU page chip every calculator serves on a set of GPUs', async () => {
  const gpu = await site.page('applied-inference.html?chip=h100');
  for (const name of CALCS) {
    await ready(gpu, name);
    const r = await response(gpu, name);
    assert.equal(r.ok, true, name);
    assert.equal(r.inputs.chip, 'h100', name);
  }
  assert.equal(await gpu.locator('#sb-gpu-notice').count(), 0);
  assert.match((await response(gpu, 'applied-inference.kv')).shape, /GPU/);
  await gpu.setViewportSize({ width: 1280, height: 900 });
  await site.shot(gpu, 'applied-inference-h100-1280');
  await gpu.setViewportSize({ width: 390, height: 844 });
  await gpu.waitForTimeout(200);
  assert.ok(await gpu.evaluate(() => document.documentElement.scrollWidth) <= 392);
  await site.shot(gpu, 'applied-inference-h100-390');
  await gpu.close();
});

test('every applied-inference problem has a working exercise', async () => {
  const page = await site.page('applied-inference.html');
  assert.equal(await solveEveryExercise(page, 'applied_inference'), 17);
  await page.close();
});

test('screenshots at 1280 and 390 px', async () => {
  const page = await site.page('applied-inference.html');
  for (const name of CALCS) await ready(page, name);
  await page.setViewportSize({ width: 1280, height: 900 });
  await site.shot(page, 'applied-inference-1280');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(200);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 392, `the page is ${wide} px wide at 390`);
  await site.shot(page, 'applied-inference-390');
  await page.close();
});
