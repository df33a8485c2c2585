// Browser tests of gpus.html: the chip explorer's GPU-beside-TPU table, the network, collective
// and LLM-roofline calculators (with a preset and bad input), the nccl-tests paste box (a pasted
// log read, fitted and plotted; a malformed one refused with its reason), and one working exercise
// per gpus problem.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { exercises, startSite, typeModelAnswer, pressCheck } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
beforeEach(async () => { await site.reset(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

const cell = (calc, key) => calc.locator(`tr[data-key="${key}"] td`);

test('the chip explorer puts an H100 beside a TPU v5p', async () => {
  const page = await site.page('gpus.html?chip=h100');
  const calc = page.locator('sb-calc#chip');
  await calc.locator('.sb-gpu-tpu').waitFor();
  // 132 SMs x 4 x 32 lanes = 16,896 CUDA cores.
  assert.match(await cell(calc, 'cuda_cores').textContent(), /16,?896/);
  // The table's first row: 132 SMs against 2 TensorCores.
  const first = await calc.locator('.sb-gpu-tpu tbody tr').first().locator('td').allTextContents();
  assert.match(first[0], /132/);
  assert.match(first[1], /2/);
  // The column heads name the chips, not their table ids.
  const heads = await calc.locator('.sb-gpu-tpu thead th').allTextContents();
  assert.deepEqual(heads, ['GPU', 'NVIDIA H100 SXM', 'TPU', 'TPU v5p']);
  await page.close();
});

test('the network, collective and roofline calculators answer and refuse bad input', async () => {
  const page = await site.page('gpus.html?chip=h100');
  const net = page.locator('sb-calc#network');
  await cell(net, 'switches').waitFor();
  // 128 nodes x 4 NVSwitches + 32 leaves + 16 spines = 560.
  assert.equal((await cell(net, 'switches').textContent()).trim(), '560');
  await net.locator('input[name="nodes"]').fill('129');
  await net.locator('[data-field="nodes"] .sb-field-error:not(:empty)').waitFor();
  assert.match(await net.locator('[data-field="nodes"] .sb-field-error').textContent(), /at most 128 nodes/);

  const col = page.locator('sb-calc#collective');
  await cell(col, 'time').waitFor();
  // The TPU beside the GPUs: TPUs only, by name. One whose pod the tables lack (v2) leaves out only
  // the TPU side, and says why.
  const tpu = col.locator('select[name="tpu"]');
  const names = await tpu.locator('option').allTextContents();
  assert.ok(names.includes('TPU v5p') && names.includes('TPU v2'), names.join(', '));
  assert.ok(!names.some((n) => /NVIDIA/.test(n)), names.join(', '));
  await cell(col, 'tpu_time').waitFor();
  await tpu.selectOption('v2');
  await col.locator('.sb-notes li', { hasText: 'no TPU side' }).waitFor();
  assert.equal(await cell(col, 'tpu_time').count(), 0);
  assert.match(await cell(col, 'time').textContent(), /2\.088 ms/);
  await col.locator('input[name="gpus"]').fill('12');
  await col.locator('[data-field="gpus"] .sb-field-error:not(:empty)').waitFor();

  const llm = page.locator('sb-calc#llm');
  await cell(llm, 'dp_threshold').waitFor();
  await page.locator('sb-llm-presets button', { hasText: 'DeepSeek' }).click();
  await page.waitForFunction(() => document.querySelector('sb-calc#llm')?.response?.inputs?.model === 'deepseek-v3');
  await cell(llm, 'ep_wide_f').waitFor();
  await page.close();
});

test('a pasted nccl-tests log is read, fitted and plotted', async () => {
  const page = await site.page('gpus.html');
  const box = page.locator('sb-nccl-fit');
  await box.locator('tr[data-key="latency"]').waitFor();
  // The default log is all_reduce on 8 H100s of one node: a share of NVLink's 450 GB/s.
  assert.match(await box.locator('tr[data-key="line_rate_fraction"] td').textContent(), /0\.[78]\d*|[78]\d(\.\d+)?\s?%/);
  // The plot draws in a task after the table (uPlot is loaded with a page's first plot, and drawn
  // once its box is laid out): wait for it, then there is one.
  await box.locator('.uplot').first().waitFor();
  assert.equal(await box.locator('.uplot').count(), 1);
  // A two-node log under mpirun's tags, without a footer.
  const log = [
    '[1,0]<stdout>:# Collective test starting: all_gather_perf',
    '[1,0]<stdout>:#  Rank  0 Group  0 Pid 1 on n1 device  0 [0x18] NVIDIA H100 80GB HBM3',
    '[1,0]<stdout>:#  Rank  1 Group  0 Pid 2 on n2 device  0 [0x18] NVIDIA H100 80GB HBM3',
    '[1,0]<stdout>:#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong',
    '[1,0]<stdout>:     1000000        125000     float    none      -1    30.00   33.33   16.67      0    30.00   33.33   16.67      0',
    '[1,0]<stdout>:    10000000       1250000     float    none      -1   120.00   83.33   41.67      0   120.00   83.33   41.67      0',
    '[1,0]<stdout>:   100000000      12500000     float    none      -1  1020.00   98.04   49.02      0  1020.00   98.04   49.02      0',
    'node-1:77:77 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB',
  ].join('\n');
  await box.locator('textarea').fill(log);
  await box.locator('button', { hasText: 'Read and fit' }).click();
  await page.waitForFunction(() => document.querySelector('sb-nccl-fit')?.response?.report?.rows?.length === 3);
  const rep = await page.evaluate(() => document.querySelector('sb-nccl-fit').response.report);
  assert.equal(rep.collective, 'all_gather');
  assert.equal(rep.ranks, 2);
  assert.equal(rep.skipped.length, 1);
  assert.equal(rep.skipped[0].line, 8);
  // 20 us + size / 100 GB/s exactly (30, 120 and 1020 us): the fit finds 20 us. Across 2 nodes
  // with one GPU of 8 each, the line is the NICs of one GPU per node: 400 GB/s x 1/8 = 50 GB/s.
  assert.ok(Math.abs(rep.fit.latency_s - 2e-5) < 1e-8, String(rep.fit.latency_s));
  assert.equal(rep.fit.line_rate_Bps, 50e9);
  // Nothing readable: the reason, no crash.
  await box.locator('textarea').fill('hello\nthis is not a log\n');
  await box.locator('button', { hasText: 'Read and fit' }).click();
  await box.locator('.sb-error:not([hidden])').waitFor();
  assert.match(await box.locator('.sb-error').textContent(), /no complete row/);
  await page.close();
});

test('every gpus problem has a working exercise', async () => {
  const page = await site.page('gpus.html');
  for await (const { id, ex, p } of exercises(page, 'gpus')) {
    for (const s of p.slots) await typeModelAnswer(ex, s, p.answers[s.name]);
    await pressCheck(ex);
    const verdicts = await ex.locator('.sb-slot-verdict').evaluateAll((els) => els.map((e) => e.dataset.verdict));
    assert.deepEqual(verdicts, p.slots.map(() => 'correct'), `${id}: ${verdicts}`);
  }
  await page.close();
});
