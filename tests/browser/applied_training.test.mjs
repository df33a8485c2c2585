// Browser tests of applied-training.html: the case study answers the chapter's questions and
// follows its inputs, with the chapter's recipe beside the planner's; every problem has a working
// exercise.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startSite, solveEveryExercise } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
beforeEach(async () => { await site.reset(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

const CASE = 'sb-case-study sb-calc[name="applied-training.case"]';

test('the case study answers the chapter\'s questions beside the planner\'s plan', async () => {
  const page = await site.page('applied-training.html');
  const calc = page.locator(CASE);
  await calc.locator('.sb-train-compare').waitFor();
  // Three groups as the chapter asks them, and the two plans side by side.
  assert.equal(await calc.locator('.sb-case-group').count(), 3);
  assert.deepEqual(await calc.locator('.sb-train-compare section h4').allTextContents(),
    ['The chapter\u2019s recipe', 'The planner\u2019s plan']);
  const model = await page.evaluate((sel) => document.querySelector(sel).response.values, CASE);
  // The shown numbers are the module's: LLaMA 3-70B's 6 P tokens on one pod.
  assert.equal(await calc.locator('.sb-case-group tr[data-key="total_flops"] td').textContent(), model.total_flops.text);
  assert.equal(model.chips.value, 8960);
  // The chapter's X_opt (1619) rounded to a power of two, 2048, and TP = 8192 / 2048 = 4 (a degree
  // LLaMA 3-70B's 8 KV heads take) on a sub-slice: 8960 - 8192 = 768 chips idle.
  assert.match(await calc.locator('.sb-verdict').textContent(),
    /2048-way FSDP x 4-way TP on 8192 of the 8960 chips, 768 idle .* is compute-bound/);
  // Four pods: the batch per pod is shown against the DCN floor, and the planner follows.
  await calc.locator('input[name="pods"]').fill('4');
  await page.waitForFunction((sel) => document.querySelector(sel).response?.values?.chips.value === 35840, CASE);
  assert.equal(await calc.locator('.sb-case-group tr[data-key="per_pod_batch"] td').textContent(), '1.049e6 tokens');
  await page.waitForFunction(() => /DP across pods/.test(document.querySelector('.sb-case-plan-verdict')?.textContent || ''));
  await site.shot(page, 'applied-training-case');
  // A batch below the chip count: the error sits next to the field.
  await calc.locator('input[name="batch"]').fill('1000');
  await page.waitForFunction((sel) => document.querySelector(`${sel} .sb-field[data-field="batch"] .sb-field-error`).textContent !== '', CASE);
  assert.match(await calc.locator('.sb-field[data-field="batch"] .sb-field-error').textContent(), /at least one token per chip/);
  await page.close();
});

test('the case study opens on a TPU a link names, and on a GPU it cannot use (the V100) computes on that TPU and says why', async () => {
  const page = await site.page('applied-training.html');
  const chips = await page.evaluate(async () => {
    const core = await import('./lib/core.js');
    return (await core.chipTable()).chips.map((c) => ({ id: c.id, tpu: c.kind === 'tpu',
      whole: Object.values(c.specs).every((s) => s.value !== null) }));
  });
  await page.close();
  // Every chip's widgets are chips.test.mjs's; here the case study's comparison on a TPU a link
  // names, then a GPU after it (the TPU it computes on is that last one).
  // (A TPU whose tables state a figure not known, TPU v2's HBM bandwidth, says so instead.)
  const pick = [chips.find((c) => c.tpu && c.whole && c.id !== 'v5p'), chips.find((c) => !c.tpu)];
  let lastTpu = 'v5p';  // the page's own TPU until a link names one (then it is the reader's last)
  for (const { id, tpu } of pick) {
    const p = await site.page(`applied-training.html?chip=${id}`);
    await p.waitForFunction((sel) => document.querySelector(sel)?.response, CASE);
    const r = await p.evaluate((sel) => document.querySelector(sel).response, CASE);
    if (tpu) {
      assert.equal(r.ok, true, `${id}: ${JSON.stringify(r.error)}`);
      await p.locator(`${CASE} .sb-train-compare`).waitFor();
      lastTpu = id;
    } else {
      // A GPU page chip: the page says once what a GPU lacks here; the case computes on a TPU.
      assert.equal(r.ok, true, `${id}: ${JSON.stringify(r.error)}`);
      assert.equal(r.inputs.chip, lastTpu, `${id}: the last TPU the reader's links named`);
      assert.match(await p.locator('#sb-gpu-notice').textContent(), /is a GPU\. .*no NVLink figures/);
      await p.locator(`${CASE} .sb-train-compare`).waitFor();
    }
    await p.close();
  }
});

test('on an H100 or a GB200 page chip the case study computes on that GPU cluster', async () => {
  for (const [id, chips] of [['h100', 1024], ['gb200', 9216]]) {
    const p = await site.page(`applied-training.html?chip=${id}`);
    await p.waitForFunction((sel) => document.querySelector(sel)?.response, CASE);
    const r = await p.evaluate((sel) => document.querySelector(sel).response, CASE);
    assert.equal(r.ok, true, `${id}: ${JSON.stringify(r.error)}`);
    assert.equal(r.inputs.chip, id);
    // The cluster the chapter's fat tree takes: 128 nodes of 8 H100s, 128 racks of 72 GB200s.
    assert.equal(r.values.chips.value, chips);
    assert.equal(r.machine, 'gpu');
    assert.equal(r.values.tp_degree.value, 8, `${id}: TP inside the node`);
    await p.locator(`${CASE} .sb-train-compare`).waitFor();
    assert.equal(await p.locator('#sb-gpu-notice').count(), 0);
    await site.shot(p, `applied-training-${id}`);
    await p.close();
  }
});

test('every applied-training problem has a working exercise', async () => {
  const page = await site.page('applied-training.html');
  assert.equal(await solveEveryExercise(page, 'applied_training'), 12);
  await page.close();
});
