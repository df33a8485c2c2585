// The built wasm module under node, through the same JS wrapper the pages use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../wasm/scaling.js';

const sb = await load();

test('list names every calculator and problem', () => {
  const r = sb.list();
  assert.equal(r.ok, true);
  const names = r.calculators.map((c) => c.name);
  for (const n of ['roofline.matmul', 'roofline.network', 'roofline.tiled', 'roofline.dot'])
    assert.ok(names.includes(n), n);
  assert.ok(r.problems.some((p) => p.id === 'roofline.Q2'));
});

test('roofline.matmul on v5e gives the hand-derived numbers', () => {
  // bf16 everywhere, B=512, D=8192, F=32768:
  // FLOPs = 2*512*8192*32768 = 2.748779e11; bytes = 2*(512*8192 + 8192*32768 + 512*32768)
  // = 2*(4194304 + 268435456 + 16777216) = 578813952; T_math = 2.748779e11/1.97e14 = 1.3953e-3 s.
  const r = sb.calc('roofline.matmul', { chip: 'v5e', B: 512, D: 8192, F: 32768 });
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.ok(Math.abs(r.values.flops.value - 2.748779069e11) < 1e3);
  assert.equal(r.values.bytes.value, 578813952);
  assert.ok(Math.abs(r.values.t_math.value - 1.39532e-3) < 1e-8);
  assert.ok(r.trace.length > 3);
});

test('check grades a right, a wrong and a malformed answer', () => {
  // roofline.Q2: b_crit = (1 byte/weight) * (1.97e14/8.2e11) / 2 = 240.24/2 = 120.12 tokens.
  const ok = sb.check('roofline.Q2', { b_crit: '120' });
  assert.equal(ok.results[0].verdict, 'correct');
  const wrong = sb.check('roofline.Q2', { b_crit: '240' });
  assert.equal(wrong.results[0].verdict, 'wrong');
  // 240 is the bf16 critical batch: the slot's own hint names the 1-byte weights.
  assert.match(wrong.results[0].hint, /1-byte weights/);
  const bad = sb.check('roofline.Q2', { b_crit: '12 GB' });
  assert.equal(bad.results[0].verdict, 'invalid');
  assert.equal(bad.results[0].error.field, 'answers.b_crit');
});

test('1e5 bad calls leave the module answering good ones', () => {
  const bad = [
    () => sb.request({ op: 'calc', name: 'roofline.matmul', inputs: { B: -1 } }),
    () => sb.request({ op: 'calc', name: 'roofline.matmul', inputs: { B: 'NaN' } }),
    () => sb.request({ op: 'calc', name: 'roofline.matmul', inputs: { chip: 'v99' } }),
    () => sb.request({ op: 'calc', name: 'roofline.matmul', inputs: { B: [1] } }),
    () => sb.request({ op: 'check', id: 'roofline.Q4', answers: { formula: '2*(B' } }),
    () => sb.request({ op: 'nope' }),
    () => sb.parse('1e999 s', 's'),
  ];
  for (let i = 0; i < 100000; i++) {
    const r = bad[i % bad.length]();
    if (r.ok !== false || !r.error || typeof r.error.message !== 'string') assert.fail(`call ${i}: ${JSON.stringify(r)}`);
  }
  const r = sb.calc('roofline.matmul', { chip: 'v5e', B: 512, D: 8192, F: 32768 });
  assert.equal(r.ok, true);
  assert.equal(r.values.bytes.value, 578813952);
});

test('errors name the field', () => {
  const r = sb.calc('roofline.matmul', { B: 0 });
  assert.equal(r.ok, false);
  assert.equal(r.error.field, 'B');
  const c = sb.calc('roofline.matmul', { chip: 'tpu v99' });
  assert.equal(c.error.field, 'chip');
  const d = sb.calc('roofline.matmul', { dtype_w: 'int3' });
  assert.equal(d.error.field, 'dtype_w');
});

test('non-JSON text straight into the module is an error value', async () => {
  const { default: factory } = await import('../../build/wasm/bin/scaling.mjs');
  const fs = await import('node:fs');
  const mod = await factory({ wasmBinary: fs.readFileSync(new URL('../../build/wasm/bin/scaling.wasm', import.meta.url)) });
  for (const t of ['', '{', 'null', '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[', '\u0000'])
    assert.equal(JSON.parse(mod.api(t)).ok, false, t);
});
