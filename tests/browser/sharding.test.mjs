// Browser tests of sharding.html: the sharded-matmul explorer (the book's four cases, the block
// pictures, a malformed sharding), the collective plot, and one working exercise per problem.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { exercises, startSite, typeModelAnswer, pressCheck } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
beforeEach(async () => { await site.reset(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

const MATMUL = 'sb-sharded-matmul sb-calc[name="sharding.matmul"]';

// The four cases of "Sharded Matrices and How to Multiply Them" on the default mesh X=4, Y=4.
const CASES = [
  // Case 1: J sharded nowhere: each device multiplies its blocks, no communication; C keeps A's and B's free shardings.
  { a: 'A[I_X, J]', b: 'B[J, K_Y]', n: 1, collectives: [], out: 'C[I_X, K_Y]' },
  // Case 2: only A shards J: AllGather A over X first, then a local matmul gives an unsharded C.
  { a: 'A[I, J_X]', b: 'B[J, K]', n: 2, collectives: ['AllGather_X'], out: 'C[I, K]' },
  // Case 3: both shard J on X: local matmuls give partial sums, an AllReduce over X adds them.
  { a: 'A[I, J_X]', b: 'B[J_X, K]', n: 3, collectives: ['AllReduce_X'], out: 'C[I, K]' },
  // Case 4: X shards both free dims: one side (A) is gathered over X; C keeps B's K_X.
  { a: 'A[I_X, J]', b: 'B[J, K_X]', n: 4, collectives: ['AllGather_X'], out: 'C[I, K_X]' },
];

test('the explorer gives the book\'s answer for each of the four cases', async () => {
  const page = await site.page('sharding.html');
  const calc = page.locator(MATMUL);
  await calc.locator('.sb-shard-case').waitFor();
  for (const c of CASES) {
    await page.locator(`sb-sharded-matmul .sb-shard-preset[data-a="${c.a}"][data-b="${c.b}"]`).click();
    await page.waitForFunction(([sel, n]) => document.querySelector(`${sel} .sb-shard-case`)?.dataset.case === String(n), [MATMUL, c.n]);
    assert.equal(await calc.locator('input[name="a"]').inputValue(), c.a);
    assert.equal(await calc.locator('input[name="b"]').inputValue(), c.b);
    assert.match(await calc.locator('.sb-shard-case').textContent(), new RegExp(`^Case ${c.n}\\. `));
    assert.equal(await calc.locator('.sb-shard-out').textContent(), c.out);
    // The collectives of the plan, named with their axes ("AllGather_X").
    const named = await calc.locator('.sb-shard-steps li[data-kind] strong').allTextContents();
    assert.deepEqual(named.map((t) => t.trim()), c.collectives, `case ${c.n}`);
    // Every case has exactly one local matmul.
    assert.equal(await calc.locator('.sb-shard-steps .sb-shard-matmul').count(), 1);
    // The block pictures of A, B and C, each with the 4 * 4 = 16 devices of the mesh.
    for (const arr of ['A', 'B', 'C']) {
      const fig = calc.locator(`figure.sb-shard-fig[data-array="${arr}"]`);
      assert.equal(await fig.locator('svg').count(), 1, `case ${c.n} ${arr}`);
      assert.equal(await fig.locator('g[data-device]').count(), 16, `case ${c.n} ${arr}`);
    }
    // The book's default plan is listed first among the alternatives.
    assert.match(await calc.locator('.sb-shard-alts tbody tr').first().textContent(), /book's default/);
  }
  // Case 2 with A[I, J_X]: A is cut into 1 x 4 blocks (J over X = 4) and each block is held by
  // the 4 devices of a Y row: 16 / 4 = 4 copies.
  await page.locator('sb-sharded-matmul .sb-shard-preset[data-a="A[I, J_X]"][data-b="B[J, K]"]').click();
  await page.waitForFunction((sel) => document.querySelector(`${sel} .sb-shard-case`)?.dataset.case === '2', MATMUL);
  const blocksOfA = await calc.locator('figure[data-array="A"] g[data-device]').evaluateAll((els) => els.map((e) => e.dataset.block));
  assert.equal(new Set(blocksOfA).size, 4);
  assert.match(await calc.locator('figure[data-array="A"] svg > text').first().textContent(), /\(1 x 4 blocks, 4 copies\)/);
  await site.shot(page, 'sharding-explorer');
  await page.close();
});

test('a malformed sharding shows an error naming the character next to the field', async () => {
  const page = await site.page('sharding.html');
  const calc = page.locator(MATMUL);
  await calc.locator('.sb-shard-case').waitFor();
  await calc.locator('input[name="a"]').fill('A[I_X, J');
  await page.waitForFunction((sel) => document.querySelector(`${sel} .sb-field[data-field="a"] .sb-field-error`).textContent !== '', MATMUL);
  // "A[I_X, J" has 8 characters: the missing ']' is noticed at character 9, the end of the input.
  assert.match(await calc.locator('.sb-field[data-field="a"] .sb-field-error').textContent(), /^at character 9 \(end of input\)/);
  assert.equal(await calc.locator('input[name="a"]').getAttribute('aria-invalid'), 'true');
  assert.equal(await calc.locator('.sb-field[data-field="b"] .sb-field-error').textContent(), '');
  // A separator that is not a comma: "A[I_X; J]", the ';' is character 6 (A=1 [=2 I=3 _=4 X=5 ;=6).
  await calc.locator('input[name="a"]').fill('A[I_X; J]');
  await page.waitForFunction((sel) => /character 6/.test(document.querySelector(`${sel} .sb-field[data-field="a"] .sb-field-error`).textContent), MATMUL);
  assert.match(await calc.locator('.sb-field[data-field="a"] .sb-field-error').textContent(), /^at character 6 \(';'\)/);
  // The error belongs to b when b is the bad one.
  await calc.locator('input[name="a"]').fill('A[I_X, J]');
  await calc.locator('input[name="b"]').fill('B[J, K_Q]');
  await page.waitForFunction((sel) => document.querySelector(`${sel} .sb-field[data-field="b"] .sb-field-error`).textContent !== '', MATMUL);
  assert.equal(await calc.locator('.sb-field[data-field="a"] .sb-field-error').textContent(), '');
  // "B[J, K_Q]": dimension K starts at character 6 (B=1 [=2 J=3 ,=4 space=5 K=6); Q is no mesh axis.
  assert.match(await calc.locator('.sb-field[data-field="b"] .sb-field-error').textContent(), /^at character 6 \(dimension K\): mesh axis Q is not in the mesh/);
  await site.shot(page, 'sharding-bad-input');
  await page.close();
});

test('the collective plot renders and moves with the message size and the op', async () => {
  const page = await site.page('sharding.html');
  const calc = page.locator('sb-collective-plot sb-calc[name="sharding.collective"]');
  const canvas = calc.locator('.sb-collective-plot-box canvas');
  await canvas.waitFor();
  // The plot's own data: x values and the "this message" series (the last one).
  const state = () => page.evaluate(() => {
    const el = document.querySelector('sb-collective-plot sb-calc');
    const u = el.collectiveView.plot.uplot;
    const last = u.data[u.data.length - 1];
    const i = last.findIndex((v) => v != null);
    return { point: [u.data[0][i], last[i]], time: u.data[1].slice(), pixels: u.ctx.canvas.toDataURL(),
      xTicks: u.axes[0]._values?.filter((v) => v) ?? [] };
  });
  const first = await state();
  // x axis labels exist (the log-log axes label their ticks).
  assert.ok(first.xTicks.length >= 3, `x ticks: ${first.xTicks}`);
  await calc.locator('input[name="bytes"]').fill('1 GB');
  await page.waitForFunction(() => {
    const u = document.querySelector('sb-collective-plot sb-calc').collectiveView.plot.uplot;
    return u.data[0].includes(1e9);
  });
  const bigger = await state();
  // The marked message moves to V = 1 GB = 1e9 B, and later in time.
  assert.equal(bigger.point[0], 1e9);
  assert.ok(bigger.point[1] > first.point[1]);
  assert.notEqual(bigger.pixels, first.pixels);
  // AllReduce = ReduceScatter + AllGather: twice the AllGather time at every size in the
  // bandwidth-bound range (the largest V on the plot is far above the knee).
  await calc.locator('select[name="op"]').selectOption('AllReduce');
  await page.waitForFunction(() => /^AllReduce/.test(document.querySelector('sb-collective-plot .sb-collective-caption').textContent));
  const reduced = await state();
  const n = reduced.time.length - 1;
  assert.ok(Math.abs(reduced.time[n] / bigger.time[n] - 2) < 0.01, `${reduced.time[n]} / ${bigger.time[n]}`);
  assert.notEqual(reduced.pixels, bigger.pixels);
  assert.match(await calc.locator('.uplot .u-legend').textContent(), /AllReduce time/);
  await site.shot(page, 'sharding-collective');
  await page.close();
});

test('every sharding problem has a working exercise', async () => {
  const page = await site.page('sharding.html');
  let formulas = 0;
  for await (const { id, ex, p } of exercises(page, 'sharding')) {
    // PQ0 and PQ2.b note where the book rounds its own figures: shown as a note, not an erratum.
    if (p.erratum) assert.match(await ex.locator('.sb-erratum').textContent(), /^About the book's figures: /, id);
    // Numbers and yes/no: the model's own answers. Formulas: the first variable times 1e30, which
    // no formula of the chapter is (none of them has such a constant), so "wrong".
    const want = {};
    for (const s of p.slots) {
      const input = ex.locator(`[name="${s.name}"]`);
      const a = p.answers[s.name];
      if (s.kind !== 'formula') { await typeModelAnswer(ex, s, a); want[s.name] = 'correct'; }
      else {
        assert.equal(s.kind, 'formula');
        assert.ok(s.vars.length > 0 && typeof a.tex === 'string', `${id}.${s.name}`);
        await input.fill(`1e30 * ${s.vars[0].name}`);
        want[s.name] = 'wrong';
        formulas++;
      }
    }
    await pressCheck(ex);
    const got = async () => Object.fromEntries(await ex.locator('[data-slot]').evaluateAll((els) =>
      els.map((e) => [e.dataset.slot, e.querySelector('.sb-slot-verdict').dataset.verdict])));
    assert.deepEqual(await got(), want, id);
    // A malformed formula is "invalid", with the parser's message beside that slot.
    const formulaSlots = p.slots.filter((s) => s.kind === 'formula');
    if (formulaSlots.length) {
      for (const s of formulaSlots) { await ex.locator(`[name="${s.name}"]`).fill(`(${s.vars[0].name} +`); want[s.name] = 'invalid'; }
      await pressCheck(ex);
      assert.deepEqual(await got(), want, id);
      for (const s of formulaSlots) {
        assert.notEqual((await ex.locator(`[data-slot="${s.name}"] .sb-field-error`).textContent()).trim(), '', `${id}.${s.name}`);
        assert.equal(await ex.locator(`[name="${s.name}"]`).getAttribute('aria-invalid'), 'true');
      }
    }
  }
  assert.ok(formulas > 0, 'the chapter has formula slots');
  await page.close();
});
