// Browser tests of profiling.html, lean: one page load reads the sample module (table by
// predicted time), a pasted instruction on another chip, a malformed line skipped with its
// reason, the tiling grid and the worked profile; a second load grades every exercise.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { exercises, startSite, typeModelAnswer, pressCheck } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
beforeEach(async () => { await site.reset(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

test('the HLO reader, the tiling grid and the worked profile', async () => {
  const page = await site.page('profiling.html');
  const box = page.locator('sb-hlo-reader');
  await page.waitForFunction(() => document.querySelector('sb-hlo-reader')?.response?.ok === true);
  const r = await page.evaluate(() => document.querySelector('sb-hlo-reader').response);
  assert.equal(r.instructions.length, 18);
  // Sorted by predicted time: the first row is the slowest counted op.
  const times = r.order.map((k) => r.instructions[k].time_s ?? -1);
  assert.deepEqual([...times].sort((a, b) => b - a), times);
  await site.shot(page, 'profiling-hlo');
  // One line with an odd one: the odd one skipped with line and column.
  await box.locator('textarea').fill('%dot.4 = f32[16,128]{1,0} dot(f32[256,16]{1,0} %a, f32[128,256]{1,0} %b), lhs_contracting_dims={0}, rhs_contracting_dims={1}\n%x = f32[2]{0} frobnicate(%a)');
  await box.locator('button', { hasText: 'Read' }).click();
  await page.waitForFunction(() => document.querySelector('sb-hlo-reader')?.response?.instructions?.length === 1);
  const one = await page.evaluate(() => document.querySelector('sb-hlo-reader').response);
  assert.equal(one.instructions[0].flops, 1048576);
  assert.equal(one.skipped[0].line, 2);
  assert.match(one.skipped[0].reason, /column 16: unknown opcode 'frobnicate'/);
  const tiles = page.locator('sb-calc#tiling-calc .sb-tiles');
  await tiles.waitFor();
  assert.equal(await tiles.locator('td.sb-pad').count(), 24 - 15);
  const worked = page.locator('sb-calc#worked');
  await worked.locator('tbody tr').first().waitFor();
  assert.match(await worked.locator('tbody tr').first().textContent(), /up-projection/);
  await site.shot(page, 'profiling');
  await page.close();
});

test('every profiling problem has a working exercise', async () => {
  const page = await site.page('profiling.html');
  for await (const { id, ex, p } of exercises(page, 'profiling')) {
    for (const s of p.slots) await typeModelAnswer(ex, s, p.answers[s.name]);
    if (!p.slots.length) continue;
    await pressCheck(ex);
    const verdicts = await ex.locator('.sb-slot-verdict').evaluateAll((els) => els.map((e) => e.dataset.verdict));
    assert.deepEqual(verdicts, p.slots.map(() => 'correct'), `${id}: ${verdicts}`);
  }
  await page.close();
});
