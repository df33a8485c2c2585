// Checks wasm/scaling.d.ts against what the built modules really answer: captures, through the JS
// wrapper (wasm/scaling.js), the response of every calculator (with every chip its chip param
// offers) and every problem, a right, a wrong, an unreadable and an empty check of each problem,
// a variant of each, each module's list, and chips, units, parse and a set of errors; writes them
// to build/types/responses.ts, each assigned to its declared type, and runs `tsc --noEmit` on it.
// An object literal assigned to a type may have no member the type does not declare, so a field
// the core sends and the .d.ts lacks fails the check as surely as a declared field it never sends.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { wrap } from '../../wasm/scaling.js';
import { chapterModules, instantiate } from '../node/modules.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = path.join(root, 'build', 'types');
const notes = [];
const decls = [];
const names = new Set();

// One declaration `export const <name>: <type> = <response>;` per captured response.
function emit(name, type, response) {
  let id = name.replace(/[^A-Za-z0-9_]/g, '_');
  for (let i = 2; names.has(id); i++) id = `${name.replace(/[^A-Za-z0-9_]/g, '_')}_${i}`;
  names.add(id);
  decls.push(`export const ${id}: ${type} = ${JSON.stringify(response)};`);
}

// An ok response to its result type, anything else to Failure (so that an error where an answer
// belongs fails the check too, unless `mayFail`).
function expectOk(name, type, r, { mayFail = false } = {}) {
  if (r.ok === true) emit(name, `T.Ok<T.${type}>`, r);
  else if (mayFail) emit(name, 'T.Failure', r);
  else throw new Error(`${name}: expected an answer, got ${JSON.stringify(r.error)}`);
}

function expectError(name, r) {
  if (r.ok !== false) throw new Error(`${name}: expected an error value`);
  emit(name, 'T.Failure', r);
}

const modules = await chapterModules();
let first = true;
for (const m of modules) {
  const mod = await instantiate(m.file);
  const sb = wrap(mod);
  const ex = wrap(await instantiate(m.problemsFile));  // the chapter's exercises module
  const heavy = m.heavyFile ? wrap(await instantiate(m.heavyFile)) : null;  // its heavy calculators
  const list = sb.list();
  if (Array.isArray(list.chapters)) expectOk(`list_${m.id}`, 'ListResult', list);
  else {
    notes.push(`${m.file}: list has no chapters yet; checked as Omit<ListResult, 'chapters'>`);
    emit(`list_${m.id}`, "T.Ok<Omit<T.ListResult, 'chapters'>>", list);
  }
  if (first) {
    // The same in every module.
    expectOk('chips', 'ChipsResult', sb.chips());
    const units = sb.units();
    if (units.ok) expectOk('units', 'UnitsResult', units);
    else notes.push(`op units: ${units.error.code} in this build; UnitsResult not checked`);
    expectOk('parse', 'ParseResult', sb.parse('45 GB/s', 'B_per_s'));
    expectError('parse_bad', sb.parse('45 parsecs', 'B_per_s'));
    expectError('unknown_op', sb.request({ op: 'nope' }));
    expectError('not_json', JSON.parse(mod.api('{"op":')));
    expectError('too_large', JSON.parse(mod.api('x'.repeat(2 << 20))));
    first = false;
  }
  for (const c of list.calculators) {
    const sb = c.heavy ? heavy : wrap(mod);
    const chip = c.params.find((p) => p.chip);
    for (const value of chip ? chip.choices : [null]) {
      const inputs = value === null ? {} : { [chip.name]: value };
      // A calculator may refuse a chip it has no figure for (an error naming the field).
      // Each against its own payload type: CalcResult<its name>.
      expectOk(`calc_${c.name}_${value ?? 'default'}`, `CalcResult<${JSON.stringify(c.name)}>`, sb.calc(c.name, inputs), { mayFail: chip !== undefined });
    }
    const num = c.params.find((p) => p.kind === 'number' && typeof p.min === 'number');
    if (num) expectError(`calc_${c.name}_below_${num.name}`, sb.calc(c.name, { [num.name]: num.min - 1 }));
    const choice = c.params.find((p) => p.kind === 'choice');
    if (choice) expectError(`calc_${c.name}_bad_${choice.name}`, sb.calc(c.name, { [choice.name]: 'no such choice' }));
  }
  expectError(`calc_unknown_${m.id}`, sb.calc(`${m.id}.no_such_calculator`, {}));
  expectOk(`list_${m.id}_problems`, 'ListResult', ex.list());
  expectError(`problem_in_calculators_${m.id}`, sb.problem(`${m.id}.no_such_problem`));
  for (const p of ex.list().problems) {
    const r = ex.problem(p.id);
    expectOk(`problem_${p.id}`, 'ProblemResult', r);
    const own = {}, wrong = {}, unreadable = {};
    for (const [slot, a] of Object.entries(r.answers)) {
      own[slot] = 'tex' in a ? a.tex : a.text;
      wrong[slot] = 'value' in a ? String(a.value * 8 + 1) : 'x + 1';
      unreadable[slot] = '12 parsecs';
    }
    expectOk(`check_${p.id}_right`, 'CheckResult', ex.check(p.id, own));
    expectOk(`check_${p.id}_wrong`, 'CheckResult', ex.check(p.id, wrong));
    expectOk(`check_${p.id}_unreadable`, 'CheckResult', ex.check(p.id, unreadable));
    expectOk(`check_${p.id}_empty`, 'CheckResult', ex.check(p.id, {}));
    // A problem with nothing to vary may answer with an error.
    expectOk(`variant_${p.id}`, 'VariantResult', ex.variant(p.id, 7), { mayFail: true });
  }
  expectError(`problem_unknown_${m.id}`, ex.problem(`${m.id}.no_such_problem`));
}

fs.mkdirSync(out, { recursive: true });
const ts = path.join(out, 'responses.ts');
const rel = path.relative(out, path.join(root, 'wasm', 'scaling.js')).split(path.sep).join('/');
fs.writeFileSync(ts, [
  '// Generated by tests/types/check.mjs from the built wasm modules: do not edit.',
  `import type * as T from '${rel}';`,
  '',
  ...decls,
  '',
].join('\n'));
fs.writeFileSync(path.join(out, 'tsconfig.json'), JSON.stringify({
  compilerOptions: {
    strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext',
    exactOptionalPropertyTypes: true, types: [],
  },
  files: ['responses.ts'],
}, null, 2));
for (const n of notes) console.log(`note: ${n}`);
const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
if (!fs.existsSync(tsc)) {
  console.error('tests/types/check.mjs: node_modules/.bin/tsc not found: TypeScript is a dev dependency (npm ci)');
  process.exit(1);
}
try {
  execFileSync(tsc, ['-p', path.join(out, 'tsconfig.json')], { stdio: 'inherit' });
} catch {
  console.error(`wasm/scaling.d.ts does not fit the modules' responses (${path.relative(root, ts)}): see above`);
  process.exit(1);
}
console.log(`wasm/scaling.d.ts fits ${decls.length} captured responses of ${modules.length} modules ` +
            `(${(fs.statSync(ts).size / 1e6).toFixed(1)} MB of TypeScript, tsc --noEmit)`);
