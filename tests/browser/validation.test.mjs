// Browser test of validation.html, one page load: the published runs predicted in the page's
// worker, the summary and table filled, every run linked to the chapter that runs it, a factor
// changed and the table recomputed. (reader.test.mjs runs axe-core on every page, this one too.)
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

test('the validation page predicts the 21 published runs and follows a changed factor', async () => {
  const page = await site.page('validation.html');
  const w = page.locator('sb-validation');
  await w.locator('table.sb-runs tbody tr').nth(20).waitFor();
  assert.equal(await w.locator('table.sb-runs tbody tr').count(), 21);
  assert.match(await w.locator('.sb-summary').textContent(), /median error [\d.]+%, worst [\d.]+%/);
  // Training runs open the planner, inference runs the step calculator, with their state.
  const links = await w.locator('table.sb-runs a[href^="training.html"], table.sb-runs a[href^="inference.html"]').count();
  assert.equal(links, 21);
  // PaLM's two pods: the planner's chips are per pod (its state key is the calculator's name).
  const palm = w.locator('a[href^="training.html"]').first();
  assert.match(await palm.getAttribute('href'), /training\.plan\.chips=3072&/);
  assert.match(await palm.getAttribute('href'), /training\.plan\.model=custom&training\.plan\.L=118&/);
  assert.equal(await palm.textContent(), 'open one of its 2 pods in the planner');
  // TensorRT-LLM's FP8 run opens the step calculator in FP8, at its decode steps' midway context.
  const trt = await w.locator('table.sb-runs tbody tr', { has: page.locator('th', { hasText: 'P38' }) }).locator('a[href^="inference.html"]').getAttribute('href');
  for (const part of ['model=llama-2-70b', 'step-calc.S=3072', 'step-calc.dtype_w=fp8', 'step-calc.dtype_kv=fp8', 'step-calc.dtype_matmul=fp8'])
    assert.ok(trt.includes(part), `${part} in ${trt}`);
  // Halving the TPU matmuls' share doubles a compute-bound TPU run's expected step: P03's
  // expected tokens/s falls.
  const p03 = () => w.locator('table.sb-runs tbody tr').nth(1).locator('td').nth(2).textContent();
  const before = Number((await p03()).replace(/,/g, ''));
  await w.locator('#factor-mxu_tpu').fill('0.36');
  await w.locator('#factor-mxu_tpu').dispatchEvent('change');
  await page.waitForFunction(() => !document.querySelector('sb-validation').hasAttribute('aria-busy'));
  await page.waitForFunction((b) => {
    const t = document.querySelectorAll('table.sb-runs tbody tr')[1].querySelectorAll('td')[2].textContent;
    return Number(t.replace(/,/g, '')) < b;
  }, before);
  // The CUDA-core decode attention (P38, TensorRT-LLM 0.6): its factor by its label, its kernel in
  // the run's configuration; halving the factor slows P38's expected output tokens/s.
  assert.equal(await page.locator('label[for="factor-vector"]').textContent(), 'Decode attention on CUDA cores, share of their rate');
  const p38 = w.locator('table.sb-runs tbody tr', { has: page.locator('th', { hasText: 'P38' }) });
  assert.match(await p38.locator('td').first().textContent(), /decode attention on CUDA cores/);
  const p38Expected = () => p38.locator('td').nth(2).textContent();
  const was = Number((await p38Expected()).replace(/,/g, ''));
  await w.locator('#factor-vector').fill(String(Number(await w.locator('#factor-vector').inputValue()) / 2));
  await w.locator('#factor-vector').dispatchEvent('change');
  await page.waitForFunction((b) => {
    const row = [...document.querySelectorAll('table.sb-runs tbody tr')].find((r) => r.querySelector('th').textContent === 'P38');
    return Number(row.querySelectorAll('td')[2].textContent.replace(/,/g, '')) < b;
  }, was);
  await site.shot(page, 'validation');
  // Following PaLM's link, the planner plans that model on one of its pods.
  const href = await palm.getAttribute('href');
  await page.goto(new URL(href, page.url()).href);
  await page.waitForFunction(() => document.querySelector('sb-calc[name="training.plan"]')?.response);
  const plan = await page.locator('sb-calc[name="training.plan"]').evaluate((el) => el.response);
  assert.ok(plan.ok, JSON.stringify(plan.error));
  assert.deepEqual([plan.inputs.model, plan.inputs.L, plan.inputs.chips, plan.inputs.chip], ['custom', 118, 3072, 'v4p']);
  await page.close();
});
