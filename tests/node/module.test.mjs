// The built wasm modules under node (two per chapter: build/wasm/bin/scaling-<chapter>.mjs, its
// calculators, and scaling-<chapter>-problems.mjs, its exercises, and its calculators again where
// some are heavy), through the same JS wrapper the pages use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { load } from '../../wasm/scaling.js';
import { chapterModules, instantiate } from './modules.mjs';

const sb = await load({ chapter: 'roofline' });
const ex = await load({ chapter: 'roofline', problems: true });

// The chapters come from the records (tests/node/modules.mjs): each module's `list` -> `chapters`.
const modules = await chapterModules();
const prefixOf = (m) => (m.record ? m.record.prefix : m.id);

test('each module carries its chapter record', (t) => {
  const without = modules.filter((m) => !m.record).map((m) => m.file);
  if (without.length) {
    // Until every module's `list` answers `chapters`, the tests take the chapter from the file name.
    t.skip(`no chapter record in the list of ${without.join(', ')}: chapters taken from the file names`);
    return;
  }
  for (const { file, record } of modules) {
    assert.match(record.id, /^[a-z_][a-z0-9_]*$/, file);
    assert.match(record.prefix, /^[a-z][a-z0-9-]*$/, file);
    // 1-12: a Part of the book; 13: a page that is not one (validation), after them.
    assert.ok(Number.isInteger(record.part) && record.part >= 1 && record.part <= 13, `${file}: part ${record.part}`);
    assert.ok(record.title && record.slug, file);
    assert.ok(Array.isArray(record.bases), file);
  }
  const parts = modules.map((m) => m.record.part);
  assert.equal(new Set(parts).size, parts.length, 'one module per Part');
});

test('each chapter module lists its own chapter and nothing else', () => {
  for (const m of modules) {
    // The calculators in the first module, the problems in the second (with the calculators again
    // where some are heavy: the test of heavy calculators below).
    assert.equal(m.calcList.problems.length, 0, `${m.file} lists problems`);
    if (!m.heavyFile) assert.equal(m.problemsList.calculators.length, 0, `${m.problemsFile} lists calculators`);
    const { calculators, problems } = m.list;
    assert.ok(calculators.length + problems.length > 0, `${m.file} lists calculators or problems`);
    for (const e of [...calculators, ...problems]) {
      const name = e.name || e.id;
      assert.equal(e.chapter, m.id, `${name} in ${m.file}`);
      assert.equal(name.slice(0, name.indexOf('.')), prefixOf(m), `${name}: the catalogue prefix of ${m.id}`);
    }
  }
});

test('a module answers another chapter\'s names with errors, not a crash', async () => {
  for (const m of modules) {
    const mod = await load({ chapter: m.id });
    const exercises = await load({ chapter: m.id, problems: true });
    for (const other of modules.filter((o) => o !== m)) {
      for (const c of other.list.calculators) {
        const r = mod.calc(c.name, {});
        assert.equal(r.ok, false, `${c.name} in ${m.file}`);
        assert.equal(r.error.code, 'unknown_calculator');
        assert.equal(r.error.field, 'name');
      }
      // (A second module without a grader, a page with no exercises, answers not_in_module.)
      const graded = m.list.problems.length > 0 || !m.heavyFile;
      for (const p of other.list.problems.slice(0, 3)) {
        for (const r of [exercises.problem(p.id), exercises.check(p.id, { x: '1' }), exercises.variant(p.id, 3)]) {
          assert.equal(r.ok, false, `${p.id} in ${m.file}`);
          assert.equal(r.error.code, graded ? 'unknown_problem' : 'not_in_module');
          assert.equal(r.error.field, graded ? 'id' : 'op');
        }
      }
    }
    // ...and keeps serving its own (a heavy one from the chapter's second module).
    const heavy = m.heavyFile ? await load({ chapter: m.id, heavy: true }) : null;
    for (const c of m.list.calculators) assert.equal((c.heavy ? heavy : mod).calc(c.name, {}).ok, true, `${c.name} after the errors`);
    for (const p of m.list.problems.slice(0, 3)) assert.equal(exercises.problem(p.id).ok, true, `${p.id} after the errors`);
  }
});

test('the calculators module sends the problem ops and the formula sheet to the exercises module, by name', async () => {
  for (const m of modules) {
    const mod = await load({ chapter: m.id });
    const id = m.list.problems[0]?.id ?? 'x.Q1';
    for (const r of [mod.problem(id), mod.check(id, { x: '1' }), mod.variant(id, 3), mod.request({ op: 'formulas' })]) {
      assert.equal(r.ok, false, `${id} in ${m.file}`);
      assert.equal(r.error.code, 'not_in_module');
      assert.equal(r.error.field, 'op');
      assert.match(r.error.message, new RegExp(`scaling-${m.id}-problems`));
    }
    // The exercises module computes no calculator (unless some are heavy: the test below), and has
    // the chapter's formula sheet. A page with no exercises (validation's: not a Part, it teaches
    // no formula) has no grader, and no sheet, in its second module.
    const exercises = await load({ chapter: m.id, problems: true });
    const calc = exercises.calc(m.list.calculators[0].name, {});
    if (!m.heavyFile) assert.equal(calc.error?.code, 'unknown_calculator', `${m.problemsFile}`);
    const sheet = exercises.request({ op: 'formulas' });
    if (!m.list.problems.length && m.heavyFile) assert.equal(sheet.error?.code, 'not_in_module', m.problemsFile);
    else assert.ok(sheet.ok && sheet.formulas.length > 0 && sheet.formulas.every((f) => f.chapter === m.id), m.problemsFile);
  }
});

// A heavy calculator's code is in the chapter's second module only (the page's worker loads it, and
// `heavy: true` names the same module as `problems: true`): the first lists it and answers it
// `not_in_module`, naming the module that computes it.
test('the calculators module sends heavy calculators to the second module, by name', async () => {
  const withHeavy = modules.filter((m) => m.heavyFile);
  assert.ok(withHeavy.length >= 1, 'a chapter with heavy calculators');
  for (const m of withHeavy) {
    const mod = await load({ chapter: m.id });
    const heavy = await load({ chapter: m.id, heavy: true });
    assert.equal(heavy, await load({ chapter: m.id, problems: true }), `${m.id}: heavy and problems name one module`);
    assert.deepEqual(heavy.list().calculators, m.list.calculators, `${m.heavyFile} lists the calculators of ${m.file}`);
    assert.deepEqual(heavy.list().problems, m.list.problems, `${m.heavyFile} lists the chapter's problems`);
    for (const c of m.list.calculators) {
      const r = mod.calc(c.name, {});
      if (!c.heavy) {
        assert.equal(r.ok, true, `${c.name} in ${m.file}`);
        assert.deepEqual(heavy.calc(c.name, {}), r, `${c.name}: the same answer from ${m.heavyFile}`);
        continue;
      }
      assert.equal(r.ok, false, `${c.name} in ${m.file}`);
      assert.equal(r.error.code, 'not_in_module');
      assert.equal(r.error.field, 'name');
      assert.match(r.error.message, new RegExp(`scaling-${m.id}-problems`));
      assert.equal(heavy.calc(c.name, {}).ok, true, `${c.name} in ${m.heavyFile}`);
    }
  }
});

test('load needs a chapter, and a chapter is a folder name', async () => {
  await assert.rejects(load(), /which module/);
  await assert.rejects(load({ chapter: '../roofline' }), /chapter must be/);
  await assert.rejects(load({ chapter: 'nope' }), /scaling-nope\.mjs|Cannot find|ENOENT/);
});

test('the tpus module computes a slice inventory', async () => {
  const tpus = await load({ chapter: 'tpus' });
  // v5p 4x4x4: 4*4*4 = 64 chips; 4 chips per host -> 64/4 = 16 hosts; 2 TensorCores per chip -> 128;
  // bf16 4.59e14 FLOPs/s per chip * 64 = 2.9376e16; HBM 96 GB * 64 = 6.144e12 B.
  const r = tpus.calc('tpus.inventory', { chip: 'v5p', shape: '4x4x4' });
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.equal(r.values.chips.value, 64);
  assert.equal(r.values.hosts.value, 16);
  assert.equal(r.values.tensorcores.value, 128);
  assert.ok(Math.abs(r.values.flops_bf16.value - 2.9376e16) < 1e6);
  assert.equal(r.values.hbm_bytes.value, 6.144e12);
  const bad = tpus.calc('tpus.inventory', { chip: 'v5p', shape: '4x0x4' });
  assert.equal(bad.ok, false);
  assert.equal(bad.error.field, 'shape');
});

test('the sharding module computes the local shard of an array', async () => {
  const sharding = await load({ chapter: 'sharding' });
  // A[I_{XY}, J] on {X: 8, Y: 2}, I=1024, J=4096, fp32 (4 B): 8*2 = 16 devices; I split 16 ways ->
  // 1024/16 = 64 rows; per device 64*4096*4 = 1,048,576 B of 1024*4096*4 = 16,777,216 B; J whole.
  const r = sharding.calc('sharding.local', { sharding: 'A[I_{XY}, J]', mesh: "{'X': 8, 'Y': 2}", sizes: '1024, 4096', dtype: 'fp32' });
  assert.equal(r.ok, true, JSON.stringify(r.error));
  assert.equal(r.values.devices.value, 16);
  assert.equal(r.values.local_I.value, 64);
  assert.equal(r.values.local_J.value, 4096);
  assert.equal(r.values.bytes_per_device.value, 1048576);
  assert.equal(r.values.global_bytes.value, 16777216);
  const bad = sharding.calc('sharding.local', { mesh: "{'X': 0}" });
  assert.equal(bad.ok, false);
  assert.equal(bad.error.field, 'mesh');
});

// Every answer the catalogue publishes (../shared/book/problems/<prefix>.json, its `exact`) is what
// the chapter's module computes from the book's inputs, within the catalogue's tolerance: the
// modules readers run are compiled file by file, the native tree in unity batches, and
// Api.PublishedAnswersAgree asks the same of the GoogleTest builds.
test('each module computes every answer the catalogue publishes', async (t) => {
  const dir = new URL('../../../shared/book/problems/', import.meta.url);
  if (!fs.existsSync(dir)) return t.skip(`no catalogue at ${dir.pathname}`);
  let compared = 0;
  for (const m of modules) {
    const file = new URL(`${prefixOf(m)}.json`, dir);
    if (!fs.existsSync(file)) continue;
    const mod = await instantiate(m.problemsFile);
    for (const item of JSON.parse(fs.readFileSync(file, 'utf8'))) {
      const r = JSON.parse(mod.api(JSON.stringify({ op: 'problem', id: item.id })));
      assert.equal(r.ok, true, `${item.id}: ${JSON.stringify(r.error)}`);
      for (const s of item.answers) {
        if (typeof s.exact !== 'number') continue;
        const got = r.answers?.[s.slot]?.value;
        const tol = Math.max(s.tol_rel ?? 0.02, 1e-9);
        assert.ok(typeof got === 'number' && Math.abs(got - s.exact) <= (s.exact ? tol * Math.abs(s.exact) : 1e-12),
          `${item.id}.${s.slot}: got ${got}, the book's exact value ${s.exact}`);
        compared += 1;
      }
    }
  }
  assert.ok(compared > 400, `${compared} published answers compared`);  // 451 over eight chapters
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
  const ok = ex.check('roofline.Q2', { b_crit: '120' });
  assert.equal(ok.results[0].verdict, 'correct');
  const wrong = ex.check('roofline.Q2', { b_crit: '240' });
  assert.equal(wrong.results[0].verdict, 'wrong');
  // 240 is the bf16 critical batch: the slot's own hint names the 1-byte weights.
  assert.match(wrong.results[0].hint, /1-byte weights/);
  const bad = ex.check('roofline.Q2', { b_crit: '12 GB' });
  assert.equal(bad.results[0].verdict, 'invalid');
  assert.equal(bad.results[0].error.field, 'answers.b_crit');
});

test('1e5 bad calls leave the module answering good ones', () => {
  const bad = [
    () => sb.request({ op: 'calc', name: 'roofline.matmul', inputs: { B: -1 } }),
    () => sb.request({ op: 'calc', name: 'roofline.matmul', inputs: { B: 'NaN' } }),
    () => sb.request({ op: 'calc', name: 'roofline.matmul', inputs: { chip: 'v99' } }),
    () => sb.request({ op: 'calc', name: 'roofline.matmul', inputs: { B: [1] } }),
    () => ex.request({ op: 'check', id: 'roofline.Q4', answers: { formula: '2*(B' } }),
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

test('non-JSON text straight into each module is an error value', async () => {
  for (const file of modules.flatMap((m) => [m.file, m.problemsFile])) {
    const mod = await instantiate(file);
    for (const t of ['', '{', 'null', '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[', '\u0000'])
      assert.equal(JSON.parse(mod.api(t)).ok, false, `${file}: ${JSON.stringify(t)}`);
  }
});

// docs/API.md: responses are ASCII (a browser decodes that several times faster than UTF-8), with
// µ and the like as \u escapes that read back as the characters.
test('every calculator and problem answers in ASCII', async () => {
  for (const m of modules) {
    const { file, problemsFile, heavyFile, list } = m;
    const calcs = await instantiate(file), exercises = await instantiate(problemsFile);
    const heavy = heavyFile ? await instantiate(heavyFile) : null;
    const reqs = [
      ...list.calculators.map((c) => [c.heavy ? heavy : calcs, { op: 'calc', name: c.name, inputs: {} }]),
      ...list.problems.map((p) => [exercises, { op: 'problem', id: p.id }]),
      [calcs, { op: 'chips' }],
    ];
    for (const [mod, req] of reqs) {
      const text = mod.api(JSON.stringify(req));
      assert.ok(/^[\x00-\x7f]*$/.test(text), `${req.name || req.id || req.op}: non-ASCII in the response`);
      assert.equal(JSON.parse(text).ok, true, req.name || req.id || req.op);
    }
  }
});

test('a unit outside ASCII crosses as an escape and reads back as itself', async () => {
  // The default roofline.matmul on v5e: 578,813,952 B / 820e9 B/s = 705.9 us, shown in µs.
  const mod = await instantiate('scaling-roofline');
  const text = mod.api('{"op":"calc","name":"roofline.matmul","inputs":{}}');
  assert.ok(text.includes('"705.9 \\u00b5s"'), 'the raw text carries the escape');
  assert.equal(JSON.parse(text).values.t_comms.text, '705.9 \u00b5s');  // U+00B5 MICRO SIGN
});
