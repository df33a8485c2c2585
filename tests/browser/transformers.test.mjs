// Browser tests of transformers.html: the accounting widget and its charts, the context-length
// plots, the KV-cache sizer, the activations widget, the model table (sorting, loading a model into
// every calculator, the model in a shared link), bad input next to its field, every page chip, and
// one working exercise per transformers problem.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { exercises, startSite, typeModelAnswer, pressCheck } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
beforeEach(async () => { await site.reset(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

const CALCS = ['transformers.accounting', 'transformers.context', 'transformers.kv_cache', 'transformers.activations'];
const calcSel = (name) => `sb-calc[name="${name}"]`;

// Waits until every model calculator shows a result for `model`.
async function modelShown(page, model) {
  await page.waitForFunction(([names, m]) => names.every((n) => {
    const el = document.querySelector(`sb-calc[name="${n}"]`);
    return el?.response?.ok && el.response.model?.id === m && el.querySelector('.sb-tf-using')?.dataset.model === m;
  }), [CALCS, model]);
}

// The module's own answer for a calculator, with the inputs its form holds now.
async function moduleCalc(page, name) {
  return page.evaluate(async (n) => {
    const core = await import('./lib/core.js');
    const sb = await core.scaling('transformers');
    return sb.calc(n, document.querySelector(`sb-calc[name="${n}"]`).inputs());
  }, name);
}

const resultText = (calc, key) => calc.locator(`.sb-results tr[data-key="${key}"] td`).textContent();

test('the accounting widget: LLaMA 3 70B by component, with charts from the module', async () => {
  const page = await site.page('transformers.html');
  await modelShown(page, 'llama-3-70b');
  const calc = page.locator(calcSel('transformers.accounting'));
  const r = await moduleCalc(page, 'transformers.accounting');
  assert.equal(r.ok, true);
  // 80 (2 * 8192 * 72 * 128 + 3 * 8192 * 28672 + 2 * 8192) + 8192 + 2 * 8192 * 128256 = 70,553,706,496.
  assert.equal(r.values.params_total.value, 70553706496);
  assert.equal(await resultText(calc, 'params_total'), r.values.params_total.text);
  // One bar per component the module lists, in parameters and in FLOPs per token.
  assert.equal(await calc.locator('.sb-tf-bars').first().locator('.sb-tf-bar-row').count(), r.breakdown.params.length);
  assert.equal(await calc.locator('.sb-tf-bars').nth(1).locator('.sb-tf-bar-row').count(), r.breakdown.flops.length);
  // The MLP (56.37B) is the longest bar: full width.
  const widths = await calc.locator('.sb-tf-bars').first().locator('.sb-tf-bar-row').evaluateAll((rows) =>
    Object.fromEntries(rows.map((row) => [row.dataset.key, row.querySelector('.sb-tf-bar').style.width])));
  assert.equal(widths.mlp, '100%');
  // The configuration fields sit in a closed box (0 = the model's value).
  assert.equal(await calc.locator('details.sb-tf-config').getAttribute('open'), null);
  assert.equal(await calc.locator('details.sb-tf-config [data-field="L"] input').inputValue(), '0');
  // A field changed: 40 layers.
  await calc.locator('details.sb-tf-config summary').click();
  await calc.locator('[data-field="L"] input').fill('40');
  await page.waitForFunction((s) => document.querySelector(s).response?.config?.L === 40, calcSel('transformers.accounting'));
  // 40 layers of 150,994,944 + 704,643,072 + 16,384 = 855,654,400, plus 8192 + 2,101,346,304:
  // 34,226,176,000 + 2,101,354,496 = 36,327,530,496.
  assert.equal((await moduleCalc(page, 'transformers.accounting')).values.params_total.value, 36327530496);
  await site.shot(page, 'transformers-accounting');
  await page.close();
});

test('a custom configuration: bad heads are an error next to their field', async () => {
  const page = await site.page('transformers.html');
  await modelShown(page, 'llama-3-70b');
  // "custom" keeps the configuration each calculator showed, as editable fields.
  await page.locator('sb-model-picker select').selectOption('custom');
  const calc = page.locator(calcSel('transformers.accounting'));
  await page.waitForFunction((s) => document.querySelector(s).response?.model?.id === 'custom', calcSel('transformers.accounting'));
  assert.equal(await calc.locator('[data-field="K"] input').inputValue(), '8');
  // The book's plain model of LLaMA 3 70B's sizes: no final norm, so 8192 fewer than the checkpoint.
  assert.equal((await moduleCalc(page, 'transformers.accounting')).values.params_total.value, 70553706496 - 8192);
  await calc.locator('details.sb-tf-config summary').click();
  await calc.locator('[data-field="K"] input').fill('7');
  const err = calc.locator('[data-field="K"] .sb-field-error');
  await page.waitForFunction((s) => document.querySelector(s).textContent !== '', `${calcSel('transformers.accounting')} [data-field="K"] .sb-field-error`);
  assert.match(await err.textContent(), /K \(KV heads\) must divide N/);
  assert.equal(await calc.locator('[data-field="K"] input').getAttribute('aria-invalid'), 'true');
  assert.ok(await calc.evaluate((el) => el.classList.contains('sb-stale')));
  await calc.locator('[data-field="K"] input').fill('16');
  await page.waitForFunction((s) => document.querySelector(s).response?.ok, calcSel('transformers.accounting'));
  assert.equal(await err.textContent(), '');
  await page.close();
});

test('the context-length explorer draws the ratio and marks both crossovers', async () => {
  const page = await site.page('transformers.html');
  await modelShown(page, 'llama-3-70b');
  const calc = page.locator(calcSel('transformers.context'));
  const plot = calc.locator('[data-plot="ratio"]');
  await plot.locator('canvas').waitFor();
  // LLaMA 3 70B: T* = (18 * 8192 * 28672 + 12 * 8192 * 128 * 72) / (12 * 64 * 128) = 52,224; 8D = 65,536.
  assert.equal(await plot.getAttribute('data-crossover'), '52224');
  assert.equal(await plot.getAttribute('data-crossover8d'), '65536');
  assert.match(await plot.locator('.u-legend').textContent(), /exact crossover T\* = 52224.*8D = 65536/);
  assert.equal(await calc.locator('[data-plot="intensity"] canvas').count(), 1);
  // A causal kernel halves the core: the crossover moves to 104,448.
  await calc.locator('select[name="causal"]').selectOption('yes');
  await page.waitForFunction((s) => document.querySelector(s)?.dataset.crossover === '104448', `${calcSel('transformers.context')} [data-plot="ratio"]`);
  assert.equal((await moduleCalc(page, 'transformers.context')).values.crossover.value, 104448);
  await site.shot(page, 'transformers-context');
  await page.close();
});

test('the KV-cache sizer: dtype, batch and a sliding window', async () => {
  const page = await site.page('transformers.html');
  await modelShown(page, 'llama-3-70b');
  const calc = page.locator(calcSel('transformers.kv_cache'));
  // 2 L K H b = 2 * 80 * 8 * 128 * 2 = 327,680 B per token.
  let r = await moduleCalc(page, 'transformers.kv_cache');
  assert.equal(r.values.per_token.value, 327680);
  assert.equal(await resultText(calc, 'per_token'), r.values.per_token.text);
  await calc.locator('select[name="dtype"]').selectOption('int8');
  await calc.locator('input[name="B"]').fill('16');
  await page.waitForFunction((s) => document.querySelector(s).response?.values?.per_token?.value === 163840, calcSel('transformers.kv_cache'));
  // int8: 163,840 B per token; 16 sequences of 8192: 16 * 8192 * 163,840 = 21,474,836,480 B.
  r = await moduleCalc(page, 'transformers.kv_cache');
  assert.equal(r.values.per_batch.value, 21474836480);
  // A 1024-token window on every layer: each sequence keeps 1024 tokens, 163,840 * 1024.
  await calc.locator('input[name="window"]').fill('1024');
  await page.waitForFunction((s) => document.querySelector(s).response?.values?.per_sequence?.value === 167772160, calcSel('transformers.kv_cache'));
  assert.equal(await calc.locator('[data-plot="kv"] canvas').count(), 1);
  await page.close();
});

test('the activations widget compares the remat policies', async () => {
  const page = await site.page('transformers.html');
  await modelShown(page, 'llama-3-70b');
  const calc = page.locator(calcSel('transformers.activations'));
  await calc.locator('select[name="policy"]').selectOption('save_all');
  await page.waitForFunction((s) => document.querySelector(s).response?.values?.arrays_per_layer?.value === 20, calcSel('transformers.activations'));
  // 2 * 20 * 4e6 * 8192 * 80 = 104,857,600,000,000 B.
  const r = await moduleCalc(page, 'transformers.activations');
  assert.equal(r.values.activation_bytes.value, 104857600000000);
  assert.equal(await calc.locator('tr.sb-tf-current').getAttribute('data-policy'), 'save_all');
  assert.equal(await calc.locator('.sb-tf-stack > span').count(), r.bars.length);
  await page.close();
});

test('the model table sorts, and a click loads a model into every calculator and the link', async () => {
  const page = await site.page('transformers.html');
  await modelShown(page, 'llama-3-70b');
  const table = page.locator('sb-model-table');
  const r = await page.evaluate(async () => {
    const core = await import('./lib/core.js');
    return (await core.scaling('transformers')).calc('transformers.models', {});
  });
  assert.equal(await table.locator('tbody tr[data-model]').count(), r.models.length);
  // Sorted by the computed total, largest first: DeepSeek-V3 (671B), then LLaMA 3.1 405B.
  await table.locator('th[data-col="params_total"] button').click();
  const order = await table.locator('tbody tr[data-model]').evaluateAll((rows) => rows.map((x) => x.dataset.model));
  const want = [...r.models].sort((a, b) => b.params_total - a.params_total).map((m) => m.id);
  assert.deepEqual(order, want);
  assert.equal(order[0], 'deepseek-v3');
  assert.equal(await table.locator('th[data-col="params_total"]').getAttribute('aria-sort'), 'descending');
  await table.locator('th[data-col="params_total"] button').click();
  assert.equal((await table.locator('tbody tr[data-model]').first().getAttribute('data-model')), want[want.length - 1]);
  // Details: the conventions of DeepSeek-V3 (MLA, shared expert, dense first layers).
  await table.locator('button[data-more="deepseek-v3"]').click();
  assert.match(await table.locator('tr[data-details="deepseek-v3"]').textContent(), /latent attention.*dense/s);
  // Load Mixtral 8x7B: every calculator follows, and the address names it.
  await table.locator('button[data-load="mixtral-8x7b"]').click();
  await modelShown(page, 'mixtral-8x7b');
  assert.match(await page.evaluate(() => location.search), /(^|[?&])model=mixtral-8x7b/);
  assert.equal(await page.locator('sb-model-picker select').inputValue(), 'mixtral-8x7b');
  const acct = await moduleCalc(page, 'transformers.accounting');
  const row = r.models.find((m) => m.id === 'mixtral-8x7b');
  assert.equal(acct.values.params_total.value, row.params_total);
  assert.equal(acct.values.params_active.value, row.params_active);
  // MoE: the parameter bars show stored and active.
  assert.equal(await page.locator(`${calcSel('transformers.accounting')} .sb-tf-legend`).count(), 1);
  await site.shot(page, 'transformers-table');
  // The link opens on the same model in a fresh page.
  const link = await page.evaluate(() => location.href);
  await page.close();
  const again = await site.page(link.slice(site.url.length));
  await modelShown(again, 'mixtral-8x7b');
  assert.equal(await again.locator('sb-model-picker select').inputValue(), 'mixtral-8x7b');
  assert.equal(await again.locator('sb-model-table tr.sb-tf-current').getAttribute('data-model'), 'mixtral-8x7b');
  await again.close();
  // A link that names only the model (as one copied from another page might).
  const bare = await site.page('transformers.html?model=deepseek-v3');
  await modelShown(bare, 'deepseek-v3');
  await bare.close();
});

test('every page chip opens the calculators in a valid state', async () => {
  const page = await site.page('transformers.html');
  await modelShown(page, 'llama-3-70b');
  // A chip whose tables state a figure not known (TPU v2) is chips.test.mjs's: it may say so.
  const chips = await page.evaluate(async () => (await (await import('./lib/core.js')).chipTable()).chips
    .filter((c) => Object.values(c.specs).every((s) => s.value !== null)).map((c) => c.id));
  for (const chip of chips) {
    await page.evaluate((c) => (async () => (await import('./lib/core.js')).setChip(c))(), chip);
    await page.waitForFunction(([names, c]) => names.every((n) => {
      const el = document.querySelector(`sb-calc[name="${n}"]`);
      const sel = el.querySelector('select[name="chip"]');
      return sel.value === c && el.response?.ok && el.response.inputs.chip === c;
    }), [CALCS, chip]);
    const stale = await page.locator('sb-calc.sb-stale').count();
    assert.equal(stale, 0, chip);
  }
  await page.close();
});

// The formula answers a reader would type (derived by hand from the chapter's formulas).
const FORMULAS = {
  'transformers.EX1': { train_flops: '6*N*P*M' },
  'transformers.Q3': { flops: '2*I*J*K*L*M*N*O' },
  'transformers.Q4.a': { intensity: 'T*S*G/(T*G + S)' },
  'transformers.Q6': { recompute_flops: '4*B*T^2*N*H' },
  'transformers.Q8.a': { min_batch: 'E*C/(2*k*W)' },
};

test('every transformers problem has a working exercise', async () => {
  const page = await site.page('transformers.html');
  let n = 0;
  for await (const { id, ex, p } of exercises(page, 'transformers')) {
    n++;
    for (const s of p.slots) {
      if (s.kind === 'formula') {
        assert.ok(FORMULAS[id]?.[s.name], `${id}.${s.name}: a formula answer for the test`);
        await ex.locator(`[name="${s.name}"]`).fill(FORMULAS[id][s.name]);
      } else {
        await typeModelAnswer(ex, s, p.answers[s.name]);
      }
    }
    await pressCheck(ex);
    const verdicts = await ex.locator('.sb-slot-verdict').evaluateAll((els) => els.map((e) => e.dataset.verdict));
    assert.deepEqual(verdicts, p.slots.map(() => 'correct'), `${id}: ${verdicts}`);
  }
  // 22 problems, one of them conceptual (Q4.c, checked by exercises()).
  assert.equal(n, 21);
  await page.close();
});
