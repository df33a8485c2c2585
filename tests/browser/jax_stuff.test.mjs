// Browser tests of jax-stuff.html, two page loads: the jit calculator's block table follows a
// PartitionSpec typed in, and a spec naming an axis the mesh lacks shows its error beside the field;
// the shard_map calculator lists each device's result; the collective matmul draws its timeline,
// a ring of 1024 as striped bars;
// every exercise with slots grades its own answers; the page fits 390 px. Then a GPU page chip:
// the calculators compute on a TPU and the page says why.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, solveEveryExercise } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
beforeEach(async () => { await site.reset(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

const CALCS = ['jax-stuff.jit', 'jax-stuff.shard_map', 'jax-stuff.collective_matmul'];
const JIT = 'sb-calc[name="jax-stuff.jit"]';
const response = (page, name) => page.evaluate((n) => document.querySelector(`sb-calc[name="${n}"]`).response, name);
const ready = (page, name) => page.waitForFunction((n) => document.querySelector(`sb-calc[name="${n}"]`)?.response, name);

test('the widgets show the module\'s blocks, devices and timeline; exercises grade; 390 px', async () => {
  const page = await site.page('jax-stuff.html');
  for (const name of CALCS) await ready(page, name);
  // The chapter's walkthrough: In[B_X, D_Y] holds [2, 1024] per device; XLA adds an AllReduce.
  await page.locator(`${JIT} .sb-jax-table`).waitFor();
  assert.match(await page.locator(`${JIT} .sb-jax-table caption`).textContent(), /AllReduce/);
  assert.match(await page.locator(`${JIT} .sb-jax-table tbody tr`).first().textContent(), /\[2, 1024\]/);
  // Out sharded over both axes: a ReduceScatter.
  await page.locator(`${JIT} input[name="out_spec"]`).fill("P('X', 'Y')");
  await page.waitForFunction((s) => document.querySelector(s).response?.collective === 'ReduceScatter', JIT);
  // An axis the mesh does not have: the error sits by the field and names the column.
  await page.locator(`${JIT} input[name="x_spec"]`).fill("P('X', 'Z')");
  await page.waitForFunction((s) => document.querySelector(s).response?.ok === false, JIT);
  assert.match(await page.locator(`${JIT} input[name="x_spec"] ~ .sb-field-error, ${JIT} .sb-field-error`).allTextContents()
    .then((t) => t.join(' ')), /column 8/);
  await page.locator(`${JIT} input[name="x_spec"]`).fill("P('X', 'Y')");
  // shard_map: eight devices, each returning [224, 225, 226, 227].
  const sm = await response(page, 'jax-stuff.shard_map');
  assert.deepEqual(sm.out, [224, 225, 226, 227]);
  assert.equal(await page.locator('sb-calc[name="jax-stuff.shard_map"] .sb-jax-table tbody tr').count(), 8);
  // The collective matmul: four matmul segments and three ppermutes.
  const cm = 'sb-calc[name="jax-stuff.collective_matmul"]';
  await page.locator(`${cm} .sb-jax-timeline`).waitFor();
  assert.equal(await page.locator(`${cm} .sb-jax-lane`).first().locator('.sb-jax-seg').count(), 4);
  assert.equal(await page.locator(`${cm} .sb-jax-lane`).nth(1).locator('.sb-jax-seg').count(), 3);
  // A ring of 1024: each lane is one striped bar, a stripe for 1024 / 64 = 16 steps.
  await page.locator(`${cm} input[name="Y"]`).fill('1024');
  await page.waitForFunction((s) => document.querySelector(s).response?.timeline?.steps?.length === 1024, cm);
  assert.equal(await page.locator(`${cm} .sb-jax-lane`).first().locator('.sb-jax-seg.sb-jax-stripes').count(), 1);
  assert.equal(await page.locator(`${cm} .sb-jax-lane`).nth(1).locator('.sb-jax-seg').count(), 1);
  assert.match(await page.locator(`${cm} .sb-jax-timeline figcaption`).textContent(), /stands for 16 steps/);
  await page.locator(`${cm} input[name="Y"]`).fill('4');
  await page.waitForFunction((s) => document.querySelector(s).response?.timeline?.steps?.length === 4, cm);
  assert.equal(await solveEveryExercise(page, 'jax_stuff'), 14);
  await page.setViewportSize({ width: 1280, height: 900 });
  await site.shot(page, 'jax-stuff-1280');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(200);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 392, `the page is ${wide} px wide at 390`);
  await site.shot(page, 'jax-stuff-390');
  await page.close();
});

test('on a GPU page chip the calculators compute on a TPU and say why', async () => {
  const gpu = await site.page('jax-stuff.html?chip=h100');
  for (const name of ['jax-stuff.jit', 'jax-stuff.collective_matmul']) {
    await ready(gpu, name);
    assert.equal((await response(gpu, name)).ok, true, name);
  }
  assert.match(await gpu.locator('#sb-gpu-notice').textContent(), /is a GPU\./);
  await gpu.close();
});
