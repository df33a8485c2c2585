// `npm run bench`: the wasm module's size (raw and gzipped) and, for every calculator, the time
// per call natively (bench/native.cpp) and in wasm under node, interleaved in one run so that
// machine noise hits both sides alike. Prints ratios, not absolute verdicts.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';

// V8 runs new wasm code in its baseline compiler and optimizes hot functions later, at times that
// vary from run to run; compiling everything optimized up front measures the steady state a page
// reaches after a few calls, the same in every run.
v8.setFlagsFromString('--no-liftoff');

const dir = new URL('../build/wasm/bin/', import.meta.url);
const wasm = readFileSync(new URL('scaling.wasm', dir));
const glue = readFileSync(new URL('scaling.mjs', dir));
const wrapper = readFileSync(new URL('../wasm/scaling.js', import.meta.url));
const kb = (n) => (n / 1024).toFixed(1) + ' KB';
const gz = (b) => gzipSync(b, { level: 9 }).length;
const total = gz(wasm) + gz(glue) + gz(wrapper);
console.log('module size');
console.log(`  scaling.wasm   ${kb(wasm.length)} raw, ${kb(gz(wasm))} gzipped`);
console.log(`  scaling.mjs    ${kb(glue.length)} raw, ${kb(gz(glue))} gzipped`);
console.log(`  scaling.js     ${kb(wrapper.length)} raw, ${kb(gz(wrapper))} gzipped`);
console.log(`  total gzipped  ${kb(total)} (target: at most 150 KB) ${total <= 150 * 1024 ? 'ok' : 'OVER'}`);

// Where the wasm bytes are: the code section (functions) and the data section (texts, tables).
function sections(bin) {
  const out = {};
  let i = 8;
  const leb = () => { let r = 0, s = 0, b; do { b = bin[i++]; r |= (b & 0x7f) << s; s += 7; } while (b & 0x80); return r >>> 0; };
  while (i < bin.length) {
    const id = bin[i++], size = leb();
    if (id === 10) out.code = bin.subarray(i, i + size);
    if (id === 11) out.data = bin.subarray(i, i + size);
    i += size;
  }
  return out;
}
const sec = sections(wasm);
for (const [name, bytes] of Object.entries(sec))
  console.log(`    ${name.padEnd(12)} ${kb(bytes.length)} raw, ${kb(gz(bytes))} gzipped`);

const { default: factory } = await import(new URL('scaling.mjs', dir));
const mod = await factory({ wasmBinary: wasm });
const list = JSON.parse(mod.api('{"op":"list"}'));

function wasmNs(req, budgetS) {
  for (let i = 0; i < 20; i++) mod.api(req);
  let calls = 0;
  const t0 = performance.now();
  let el = 0;
  while (el < budgetS * 1000) {
    for (let i = 0; i < 50; i++) mod.api(req);
    calls += 50;
    el = performance.now() - t0;
  }
  return (el * 1e6) / calls;
}

// Five rounds, alternating native and wasm; the median of each side is reported.
const rounds = 5, budget = 0.12;
const native = {}, inWasm = {};
for (let r = 0; r < rounds; r++) {
  const out = execFileSync(new URL('../build/native/bin/sb_bench', import.meta.url).pathname, [String(budget)]);
  for (const line of out.toString().trim().split('\n')) {
    const j = JSON.parse(line);
    (native[j.name] ??= []).push(j.ns_per_call);
  }
  for (const c of list.calculators) {
    const req = JSON.stringify({ op: 'calc', name: c.name, inputs: {} });
    (inWasm[c.name] ??= []).push(wasmNs(req, budget));
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
console.log(`\ntime per call (median of ${rounds} interleaved rounds; target: wasm at most 2x native)`);
console.log('  calculator'.padEnd(28) + 'native'.padStart(12) + 'wasm'.padStart(12) + 'ratio'.padStart(9));
const ratios = [];
for (const c of list.calculators) {
  const n = median(native[c.name]), w = median(inWasm[c.name]);
  ratios.push(w / n);
  console.log(`  ${c.name}`.padEnd(28) + `${(n / 1000).toFixed(2)} us`.padStart(12) +
              `${(w / 1000).toFixed(2)} us`.padStart(12) + `${(w / n).toFixed(2)}x`.padStart(9));
}
const geo = Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length);
console.log(`  geometric mean ratio ${geo.toFixed(2)}x ${geo <= 2 ? 'ok' : 'OVER'}`);
