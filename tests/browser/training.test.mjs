// Browser tests of training.html: the planner answers as its sliders move, the regime map draws and
// follows the model, a strategy's breakdown follows the buttons, an H100 page chip plans on the GPU
// cluster (beside a v5p slice) while the torus widgets say what a GPU lacks and compute on a TPU,
// and every problem has a working exercise.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, solveEveryExercise } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
beforeEach(async () => { await site.reset(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

const PLAN = 'sb-training-planner sb-calc[name="training.plan"]';

// Moves a range input as a reader's drag does: a new value and an input event.
async function slide(page, selector, value) {
  await page.locator(selector).evaluate((el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, value);
}

// The planner runs in a worker (it is heavy): waits until no search is on its way.
const planIdle = (page) => page.waitForFunction((sel) => {
  const c = document.querySelector(sel);
  return c?.response && !c.hasAttribute('aria-busy');
}, PLAN, { timeout: 60000 });

const planState = async (page) => (await planIdle(page), page.evaluate((sel) => {
  const r = document.querySelector(sel).response;
  return { ok: r.ok, B: r.inputs?.B, chips: r.values?.chips.value, verdict: r.verdict, rows: document.querySelectorAll(`${sel} .sb-train-plans tbody tr`).length };
}, PLAN));

test('the planner answers as the batch and chip sliders move', async () => {
  const page = await site.page('training.html');
  await page.locator(`${PLAN} .sb-train-plans tbody tr`).first().waitFor();
  // The page opens on the chip its text uses: v5p, a full pod of 8960 chips, 4M tokens.
  assert.equal(await page.locator(`${PLAN} select[name="chip"]`).inputValue(), 'v5p');
  const first = await planState(page);
  assert.equal(first.chips, 8960);
  assert.equal(first.B, 4194304);
  assert.match(first.verdict, /^Best: /);
  assert.ok(first.rows >= 5, `${first.rows} strategies in the table`);
  assert.equal(await page.locator(`${PLAN} .sb-train-plans tbody tr[data-reason="best"]`).count(), 1);
  // Every losing row says why.
  for (const why of await page.locator(`${PLAN} .sb-train-plans tbody tr:not([data-reason="best"]) .sb-train-why`).allTextContents())
    assert.ok(why.length > 20, why);
  // The batch slider: 2^26 = 67,108,864 tokens. The form and the answer follow at once.
  await slide(page, 'sb-training-planner input[name="batch-slider"]', 26);
  const bigger = await planState(page);
  assert.equal(bigger.B, 2 ** 26);
  assert.equal(await page.locator(`${PLAN} input[name="B"]`).inputValue(), String(2 ** 26));
  assert.notEqual(bigger.verdict, first.verdict);
  // The search's size, the answer's own (never a stale one).
  const configs = await page.evaluate((sel) => document.querySelector(sel).response.values.configs.value, PLAN);
  assert.equal(await page.locator('sb-training-planner .sb-train-timing').textContent(), `Searched ${configs} configurations.`);
  // The chip slider walks the counts the chip comes in: 4096 (a 16x16x16) is one of them.
  const counts = await page.evaluate((sel) => document.querySelector(sel).response.chip_counts, PLAN);
  await slide(page, 'sb-training-planner input[name="chips-slider"]', counts.indexOf(4096));
  const fewer = await planState(page);
  assert.equal(fewer.chips, 4096);
  assert.equal(await page.locator('sb-training-planner .sb-train-out').nth(1).textContent(), '4096 chips');
  // Two pods: data parallelism across them over DCN appears in the strategies.
  await slide(page, 'sb-training-planner input[name="chips-slider"]', counts.indexOf(17920));
  assert.equal((await planState(page)).chips, 17920);
  assert.match(await page.locator(`${PLAN} .sb-train-plans tbody`).textContent(), /DP across pods/);
  await site.shot(page, 'training-planner');
  // A model that fits nowhere on 4 chips: the table says so.
  await page.locator(`${PLAN} select[name="model"]`).selectOption('llama-3.1-405b');
  await slide(page, 'sb-training-planner input[name="chips-slider"]', counts.indexOf(4));
  await page.locator(`${PLAN} .sb-train-nowhere`).waitFor();
  assert.match(await page.locator(`${PLAN} .sb-verdict`).textContent(), /^Fits nowhere/);
  await page.close();
});

test('the planner on a full v5p pod: the wasm time per search (reported, not asserted)', async () => {
  const page = await site.page('training.html');
  const ms = await page.evaluate(async () => {
    // The planner is heavy: its code is in the chapter's second module, which the page's worker loads.
    const sb = await (await import('./wasm/scaling.js')).load({ chapter: 'training', heavy: true });
    const inputs = { chip: 'v5p', B: '4194304' };
    sb.calc('training.plan', inputs);
    const t0 = performance.now();
    let r;
    for (let i = 0; i < 5; i++) r = sb.calc('training.plan', inputs);
    return { ms: (performance.now() - t0) / 5, configs: r.values.configs.value };
  });
  // The planner's own count (training.plan's configs), after it skips the TP degrees LLaMA 3 70B's
  // heads do not take and more stages than layers (chapters/training/planner.cpp).
  assert.equal(ms.configs, 60726);
  // The tests' Chromium runs wasm on V8's baseline compiler (harness.mjs TEST_FLAGS): `npm run
  // bench` times the calls as a reader's browser runs them.
  console.log(`# training.plan on a full v5p pod in Chromium's baseline wasm tier: ${ms.ms.toFixed(2)} ms per search, ` +
              `${(ms.ms * 1e6 / ms.configs).toFixed(1)} ns per configuration`);
  await page.close();
});

test('the regime map draws and follows the model', async () => {
  const page = await site.page('training.html');
  const map = page.locator('sb-regime-map svg.sb-train-map');
  await map.waitFor();
  const cells = async () => page.evaluate(() => {
    const r = document.querySelector('sb-regime-map sb-calc').response;
    const rects = [...document.querySelectorAll('sb-regime-map svg.sb-train-map rect')];
    const by = {};
    for (const el of rects) by[el.dataset.regime] = (by[el.dataset.regime] || 0) + 1;
    return { n: rects.length, want: r.map.chips.length * r.map.batch_per_chip.length, by };
  });
  const llama70 = await cells();
  assert.equal(llama70.n, llama70.want);
  // LLaMA 3-70B: FSDP and FSDP + TP regions; pure DP nowhere (10 P = 705 GB per chip).
  assert.ok(llama70.by.FSDP > 0 && llama70.by['FSDP+TP'] > 0, JSON.stringify(llama70.by));
  assert.equal(llama70.by.DP, undefined);
  // The floors as lines, and the form's setup as a ring.
  assert.equal(await map.locator('line[data-floor]').count(), 2);
  assert.equal(await map.locator('circle.sb-train-point').count(), 1);
  // LLaMA 2 7B fits replicated (10 x 6.7e9 = 67 GB < 96 GB): DP appears.
  await page.locator('sb-regime-map select[name="model"]').selectOption('llama-2-7b');
  await page.waitForFunction(() => document.querySelector('sb-regime-map rect[data-regime="DP"]'));
  assert.ok((await cells()).by.DP > 0);
  await site.shot(page, 'training-regime-map');
  await page.close();
});

test('one strategy, layer by layer, follows the buttons', async () => {
  const page = await site.page('training.html');
  const calc = page.locator('sb-training-strategy sb-calc[name="training.strategy"]');
  await calc.locator('.sb-train-collectives').waitFor();
  // FSDP+TP by default, on the model's own gated MLP (3 matrices): 4 TP collectives on the
  // critical path and 3 x 3 = 9 FSDP ones on X.
  assert.equal(await calc.locator('.sb-train-collectives tbody tr').count(), 13);
  assert.equal(await calc.locator('.sb-train-sides tbody tr').count(), 6);
  await page.locator('sb-training-strategy button[data-strategy="DP"]').click();
  await page.waitForFunction(() => document.querySelector('sb-training-strategy sb-calc').response.strategy === 'DP');
  // DP: one AllReduce per weight gradient of the gated MLP's 3 matrices, backward only; the
  // replicated state does not fit.
  assert.deepEqual(await calc.locator('.sb-train-collectives tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.op)), ['AllReduce', 'AllReduce', 'AllReduce']);
  assert.match(await calc.locator('.sb-verdict').textContent(), /does not fit/);
  await page.locator('sb-training-strategy button[data-strategy="TP"]').click();
  // TP over every chip of the pod is no layout a mesh can hold: 8960 = 2^8 x 35 does not divide
  // D = 8192, which the widget says beside the chip count.
  await page.waitForFunction(() => /does not divide the model width/.test(
    document.querySelector('sb-training-strategy sb-calc .sb-field[data-field="chips"] .sb-field-error')?.textContent || ''));
  await site.shot(page, 'training-strategy');
  await page.close();
});

// Every TPU: chips.test.mjs (every widget of every page on every chip, computing on the page chip).
test('on an H100 page chip the planner plans on the H100 cluster, beside a v5p slice; the torus widgets say what a GPU lacks', async () => {
  const page = await site.page('training.html?chip=h100');
  // The planner takes the GPU: 1024 H100s (128 nodes of 8 under the fat tree), its own HBM.
  const plan = await planState(page);
  assert.equal(plan.ok, true);
  assert.equal(plan.chips, 1024);
  assert.match(plan.verdict, /^Best: /);
  const best = await page.evaluate((sel) => document.querySelector(sel).response, PLAN);
  assert.equal(best.inputs.chip, 'h100');
  assert.equal(best.values.hbm.value, 80e9);
  assert.equal(best.best.slice, '128 nodes of 8 GPUs');
  assert.ok(best.best.Y <= 8, 'TP stays inside the NVLink node');
  // Side by side: the H100 cluster and a 1024-chip v5p slice, both the module's answers.
  const VS = 'sb-plan-versus sb-calc[name="training.versus"]';
  await page.waitForFunction((sel) => { const c = document.querySelector(sel); return c?.response && !c.hasAttribute('aria-busy'); }, VS, { timeout: 60000 });
  const vs = await page.evaluate((sel) => document.querySelector(sel).response, VS);
  assert.equal(vs.ok, true);
  assert.deepEqual(vs.columns.map((c) => c.chip), ['h100', 'v5p']);
  assert.deepEqual(vs.columns.map((c) => c.chips), [1024, 1024]);
  assert.equal(await page.locator(`${VS} .sb-train-versus thead th`).nth(1).textContent(), 'NVIDIA H100 SXM');
  await site.shot(page, 'training-versus');
  // One strategy and the FSDP x TP split lay their mesh on the H100 cluster: TP inside the node.
  for (const name of ['training.strategy', 'training.split']) {
    await page.waitForFunction((n) => document.querySelector(`sb-calc[name="${n}"]`)?.response, name);
    const r = await page.evaluate((n) => document.querySelector(`sb-calc[name="${n}"]`).response, name);
    assert.equal(r.ok, true, name);
    assert.equal(r.inputs.chip, 'h100', name);
    assert.equal(r.values.Y.value, 8, `${name}: TP over the 8 GPUs of a node`);
    assert.ok(!(await page.locator(`sb-calc[name="${name}"]`).evaluate((el) => el.classList.contains('sb-stale'))), name);
  }
  await site.shot(page, 'training-h100-split');
  // The regime map computes on the page's own TPU and the page says, in the module's words, what
  // a GPU lacks there.
  await page.locator('#sb-gpu-notice').waitFor();
  const notice = await page.locator('#sb-gpu-notice').textContent();
  assert.match(notice, /^NVIDIA H100\b.* is a GPU\. .*ICI torus/);
  assert.doesNotMatch(notice, /Part 12/);
  await page.waitForFunction(() => document.querySelector('sb-calc[name="training.regime"]')?.response);
  const regime = await page.evaluate(() => document.querySelector('sb-calc[name="training.regime"]').response);
  assert.equal(regime.ok, true);
  assert.equal(regime.inputs.chip, 'v5p', 'the regime map: the page\'s own TPU (no TPU picked yet)');
  await page.close();
});

test('on a GB200 page chip the 1024 chips snap to 14 whole NVL72 racks, and the page says so', async () => {
  const page = await site.page('training.html?chip=gb200');
  const VS = 'sb-plan-versus sb-calc[name="training.versus"]';
  await page.waitForFunction((sel) => { const c = document.querySelector(sel); return c?.response && !c.hasAttribute('aria-busy'); }, VS, { timeout: 60000 });
  const vs = await page.evaluate((sel) => document.querySelector(sel).response, VS);
  assert.equal(vs.ok, true, JSON.stringify(vs.error));
  // 1024 / 72 = 14.2 racks: the nearest cluster, 14 x 72 = 1008 GPUs, beside 1024 v5p chips.
  assert.deepEqual(vs.columns.map((c) => c.chips), [1008, 1024]);
  assert.match(await page.locator(`${VS} .sb-notes`).textContent(), /14 nodes, 1008 GPUs/);
  const st = 'sb-training-strategy sb-calc[name="training.strategy"]';
  await page.waitForFunction((sel) => document.querySelector(sel)?.response, st);
  const r = await page.evaluate((sel) => document.querySelector(sel).response, st);
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.equal(r.inputs.chip, 'gb200');
  await site.shot(page, 'training-gb200');
  await page.close();
});

test('every training problem has a working exercise', async () => {
  const page = await site.page('training.html');
  assert.equal(await solveEveryExercise(page, 'training'), 23);  // 25 problems, 2 conceptual (Ex9, Ex13)
  await page.close();
});
