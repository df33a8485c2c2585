// Browser tests of inference.html: the step calculator draws its terms and follows the page's chip,
// the frontier redraws as the context slider moves and shows a point's configuration, the planner
// answers for an MoE the book never uses (and says when nothing meets the target), the EP calculator
// is marked beyond the book, a GPU page chip serves on GPUs (NVLink node, nodes beyond), and every
// problem has a working exercise.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, solveEveryExercise } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
beforeEach(async () => { await site.reset(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

const CALCS = ['inference.step', 'inference.frontier', 'inference.plan', 'inference.sharding', 'inference.moe', 'inference.engine'];
const response = (page, name) => page.evaluate((n) => document.querySelector(`sb-calc[name="${n}"]`).response, name);
const ready = (page, name) => page.waitForFunction((n) => document.querySelector(`sb-calc[name="${n}"]`)?.response, name);

test('the decode step draws its terms, its memory and its critical batches', async () => {
  const page = await site.page('inference.html');
  const calc = page.locator('sb-calc[name="inference.step"]');
  await calc.locator('[data-part="terms"]').waitFor();
  assert.equal(await calc.locator('[data-part="terms"] .sb-inf-bar-row').count(), 4);
  assert.match(await calc.locator('.sb-verdict').textContent(), /weight-load bound \(TPU v5e 4x4\)/);
  assert.equal(await calc.locator('[data-part="quantization"] tbody tr').count(), 4);
  // A batch that does not fit: the error sits next to B and names the largest that does.
  await calc.locator('input[name="B"]').fill('139');
  await page.waitForFunction(() => document.querySelector('sb-calc[name="inference.step"]').response.ok === false);
  assert.match(await calc.locator('.sb-field[data-field="B"] .sb-field-error').textContent(), /at most 138 fit/);
  await calc.locator('input[name="B"]').fill('32');
  await page.waitForFunction(() => document.querySelector('sb-calc[name="inference.step"]').response.ok);
  // The page's chip: a v5p slice of 16 chips answers for the same model.
  await page.locator('sb-chip-picker select').selectOption('v5p');
  await page.waitForFunction(() => document.querySelector('sb-calc[name="inference.step"]').response.inputs.chip === 'v5p');
  assert.equal((await response(page, 'inference.step')).ok, true);
  await site.shot(page, 'inference-step');
  await page.close();
});

test('the frontier redraws as the context moves and shows a point on hover', async () => {
  const page = await site.page('inference.html');
  const widget = page.locator('sb-inference-frontier');
  await widget.locator('.sb-inf-plot canvas').first().waitFor();
  const state = () => page.evaluate(() => {
    const r = document.querySelector('sb-calc[name="inference.frontier"]').response;
    return { S: r.inputs.S, n: r.points.length, front: r.values.front.value, best: r.values.best_tok_s_chip.value,
      buttons: document.querySelectorAll('sb-inference-frontier .sb-inf-front button').length };
  });
  const first = await state();
  assert.equal(first.S, 8192);
  assert.equal(first.buttons, first.front);
  // 32k tokens: the caches grow, fewer sequences fit, throughput per chip falls.
  await widget.locator('input[name="context-slider"]').evaluate((el) => { el.value = '4'; el.dispatchEvent(new Event('input', { bubbles: true })); });
  await page.waitForFunction(() => document.querySelector('sb-calc[name="inference.frontier"]').response.inputs.S === 32768);
  const longer = await state();
  assert.ok(longer.best < first.best, `${longer.best} < ${first.best}`);
  assert.equal(await widget.locator('output').textContent(), '32768 tokens');
  // Hovering the plot names a configuration; so does picking a point of the front.
  // (hover() scrolls the plot into view first: the page is taller than the window.)
  const over = widget.locator('.sb-inf-plot .u-over');
  const box = await over.boundingBox();
  await over.hover({ position: { x: box.width * 0.3, y: box.height * 0.5 } });
  await page.waitForFunction(() => /chips\), batch/.test(document.querySelector('sb-inference-frontier .sb-inf-hover').textContent));
  await widget.locator('.sb-inf-front button').first().click();
  assert.match(await widget.locator('.sb-inf-hover').textContent(), /on the front/);
  await site.shot(page, 'inference-frontier');
  await page.close();
});

test('the planner answers for an MoE the book never uses, and says when nothing meets the target', async () => {
  const page = await site.page('inference.html');
  const calc = page.locator('sb-calc[name="inference.plan"]');
  await calc.locator('.sb-inf-options tbody tr').first().waitFor();
  await calc.locator('select[name="model"]').selectOption('qwen3-235b-a22b');
  await page.waitForFunction(() => document.querySelector('sb-calc[name="inference.plan"]').response.inputs.model === 'qwen3-235b-a22b');
  const r = await response(page, 'inference.plan');
  assert.equal(r.ok, true);
  assert.equal(r.met, true);
  assert.match(r.verdict, /^Best: /);
  assert.equal(await calc.locator('.sb-inf-options tr.sb-inf-best').count(), 1);
  for (const why of await calc.locator('.sb-inf-options tbody tr:not(.sb-inf-best) .sb-inf-why').allTextContents())
    assert.ok(why.length > 10, why);
  await site.shot(page, 'inference-planner');
  await calc.locator('input[name="tpot"]').fill('10 us');
  await page.waitForFunction(() => document.querySelector('sb-calc[name="inference.plan"]').response.met === false);
  assert.match(await calc.locator('.sb-verdict').textContent(), /^Nothing meets the target\. Closest: /);
  await page.close();
});

test('the EP calculator is marked beyond the book and shows its mesh', async () => {
  const page = await site.page('inference.html');
  await ready(page, 'inference.moe');
  assert.match(await page.locator('#moe .sb-inf-beyond').textContent(), /Beyond the book/);
  assert.match(await page.locator('sb-calc[name="inference.moe"] .sb-inf-mesh').textContent(), /experts: W_in\[E_\{dp,tp\}/);
  // Its derivation names where its records come from.
  const sections = await page.evaluate(() => document.querySelector('sb-calc[name="inference.moe"]').response.trace
    .map((s) => s.section).filter(Boolean));
  assert.ok(sections.some((s) => s.startsWith('beyond the book')), sections.join());
  await page.close();
});

// Every TPU: chips.test.mjs (every widget of every page on every chip, computing on the page chip).
test('on a GPU page chip every calculator serves on GPUs: NVLink inside a node, nodes beyond', async () => {
  // An H100 page chip: every calculator computes on the H100 (no note at the top), the step adds
  // its AllReduces as a fourth term, and 2D sharding says what a GPU lacks.
  const gpu = await site.page('inference.html?chip=h100');
  for (const name of CALCS) {
    await ready(gpu, name);
    const r = await response(gpu, name);
    assert.equal(r.ok, true, name);
    assert.equal(r.inputs.chip, 'h100', name);
  }
  assert.equal(await gpu.locator('#sb-gpu-notice').count(), 0);
  const step = gpu.locator('sb-calc[name="inference.step"]');
  assert.equal(await step.locator('[data-part="terms"] .sb-inf-bar-row').count(), 5);
  assert.match(await step.locator('.sb-verdict').textContent(), /H100 SXM 16-GPU cluster \(2 nodes\)/);
  assert.match(JSON.stringify((await response(gpu, 'inference.sharding')).notes), /not a torus/);
  await gpu.setViewportSize({ width: 1280, height: 900 });
  await site.shot(gpu, 'inference-h100-1280');
  await gpu.setViewportSize({ width: 390, height: 844 });
  await gpu.waitForTimeout(200);
  assert.ok(await gpu.evaluate(() => document.documentElement.scrollWidth) <= 392);
  await site.shot(gpu, 'inference-h100-390');
  await gpu.close();
});

test('every inference problem has a working exercise', async () => {
  const page = await site.page('inference.html');
  assert.equal(await solveEveryExercise(page, 'inference'), 23);
  await page.close();
});

test('screenshots at 1280 and 390 px', async () => {
  const page = await site.page('inference.html');
  await page.locator('sb-inference-frontier .sb-inf-plot canvas').first().waitFor();
  await page.setViewportSize({ width: 1280, height: 900 });
  await site.shot(page, 'inference-1280');
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(200);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 392, `the page is ${wide} px wide at 390`);
  await site.shot(page, 'inference-390');
  await page.close();
});
