// Browser tests of the widgets on the roofline page: every problem gets a working exercise, bad
// input is reported next to its field, and a shared link restores a widget's state.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { exercises, startSite, typeModelAnswer, pressCheck } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
beforeEach(async () => { await site.reset(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

const leadingNumber = (t) => Number(String(t).trim().replace(/,/g, '').match(/^[-+]?[0-9.]+(e[-+]?\d+)?/i)[0]);

test('every roofline problem has a working exercise', async () => {
  const page = await site.page('roofline.html');
  for await (const { id, ex, p } of exercises(page, 'roofline')) {
    let expectCorrect = 0;
    for (const s of p.slots) {
      if (s.kind !== 'formula') { await typeModelAnswer(ex, s, p.answers[s.name]); expectCorrect++; }
      else await ex.locator(`[name="${s.name}"]`).fill(s.vars?.[0]?.name || 'x');  // a formula we cannot type from the model: any verdict will do
    }
    await pressCheck(ex);
    const verdicts = await ex.locator('.sb-slot-verdict').evaluateAll((els) => els.map((e) => e.dataset.verdict));
    assert.equal(verdicts.length, p.slots.length, `${id}: a verdict per slot`);
    for (const v of verdicts) assert.ok(['correct', 'close', 'wrong'].includes(v), `${id}: verdict ${v}`);
    // The model's own numbers, typed back, are graded correct.
    assert.ok(verdicts.filter((v) => v === 'correct').length >= expectCorrect, `${id}: ${verdicts}`);
  }
  await site.shot(page, 'roofline');
  await page.close();
});

test('bad input shows an error next to its field', async () => {
  const page = await site.page('roofline.html');
  const calc = page.locator('sb-calc[name="roofline.matmul"]');
  await calc.locator('input[name="B"]').waitFor();
  await calc.locator('input[name="B"]').fill('12 parsecs');
  const err = calc.locator('.sb-field[data-field="B"] .sb-field-error');
  await page.waitForFunction(() => document.querySelector('sb-calc[name="roofline.matmul"] .sb-field[data-field="B"] .sb-field-error').textContent !== '');
  assert.notEqual((await err.textContent()).trim(), '');
  assert.equal(await calc.locator('input[name="B"]').getAttribute('aria-invalid'), 'true');
  // The other fields carry no error.
  assert.equal((await calc.locator('.sb-field[data-field="D"] .sb-field-error').textContent()), '');
  // An answer that is not a number is "invalid", with the message beside that slot.
  const ex = page.locator('sb-exercise[problem="roofline.Q2"]');
  await ex.locator('input[name="b_crit"]').fill('lots');
  await ex.locator('button[data-action="check"]').click();
  await ex.locator('.sb-slot-verdict[data-verdict="invalid"]').waitFor();
  assert.notEqual((await ex.locator('[data-slot="b_crit"] .sb-field-error').textContent()).trim(), '');
  await site.shot(page, 'bad-input');
  // Fixing the field clears the error and recomputes:
  // B = 1024: I = 2*1024*8192*32768 / (2*1024*8192 + 2*8192*32768 + 2*1024*32768)
  //             = 549,755,813,888 / 620,756,992 = 885.6 FLOPs/B
  await calc.locator('input[name="B"]').fill('1024');
  await page.waitForFunction(() => document.querySelector('sb-calc[name="roofline.matmul"] .sb-field[data-field="B"] .sb-field-error').textContent === '');
  const cell = calc.locator('tr[data-key="intensity"] td');
  assert.ok(Math.abs(leadingNumber(await cell.textContent()) - 885.6) < 0.05);
  await page.close();
});

test('a shared link restores a calculator and an exercise', async () => {
  const page = await site.page('roofline.html');
  const calc = page.locator('sb-calc[name="roofline.matmul"]');
  await calc.locator('input[name="B"]').waitFor();
  await calc.locator('input[name="B"]').fill('1024');
  await page.waitForFunction(() => /roofline\.matmul\.B=1024/.test(location.search));
  const ex = page.locator('sb-exercise[problem="roofline.Q2"]');
  await ex.locator('button[data-action="variant"]').click();
  await page.waitForFunction(() => /roofline\.Q2\.seed=\d+/.test(location.search));
  const variantGiven = await ex.locator('.sb-given dd').allTextContents();
  await ex.locator('input[name="b_crit"]').fill('7');
  await page.waitForFunction(() => /roofline\.Q2\.b_crit=7/.test(location.search));
  const link = await page.evaluate(() => location.href);
  await page.close();

  // A new reader (fresh tab, same link) sees the same configuration.
  const again = await site.page(link.slice(site.url.length));
  const calc2 = again.locator('sb-calc[name="roofline.matmul"]');
  await calc2.locator('tr[data-key="intensity"] td').waitFor();
  assert.equal(await calc2.locator('input[name="B"]').inputValue(), '1024');
  // B = 1024 gives I = 885.6 FLOPs/B (arithmetic in the previous test).
  assert.ok(Math.abs(leadingNumber(await calc2.locator('tr[data-key="intensity"] td').textContent()) - 885.6) < 0.05);
  const ex2 = again.locator('sb-exercise[problem="roofline.Q2"]');
  await ex2.locator('.sb-given dd').first().waitFor();
  assert.deepEqual(await ex2.locator('.sb-given dd').allTextContents(), variantGiven);
  assert.equal(await ex2.locator('input[name="b_crit"]').inputValue(), '7');
  // The restored answer is graded on load: 7 tokens is far from any variant's critical batch.
  await ex2.locator('.sb-slot-verdict[data-verdict]').waitFor();
  await again.close();
});
