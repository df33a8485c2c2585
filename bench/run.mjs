// `npm run bench`: for every chapter module (build/wasm/bin/scaling-<chapter>.{mjs,wasm}) its size,
// raw and gzipped, and for every calculator the time per call natively (bench/native.cpp, which has
// every chapter) and in wasm under node, in its own chapter's module, paired call by call in one run so that
// machine noise hits both sides alike. Prints ratios, not absolute verdicts.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';

// V8 runs new wasm code in its baseline compiler and optimizes hot functions later, at times that
// vary from run to run; compiling everything optimized up front measures the steady state a page
// reaches after a few calls, the same in every run.
v8.setFlagsFromString('--no-liftoff');

const dir = new URL('../build/wasm/bin/', import.meta.url);
// The targets hold for the module a page loads; the roofline page's module comes first.
const FIRST = 'roofline';
const chapters = readdirSync(dir)
  .map((f) => f.match(/^scaling-([a-z_][a-z0-9_]*)\.wasm$/)?.[1])
  .filter(Boolean)
  .sort((a, b) => (a === FIRST ? -1 : b === FIRST ? 1 : a.localeCompare(b)));
if (!chapters.length) {
  console.error(`bench: no scaling-<chapter>.wasm in ${dir.pathname}: run scripts/build.sh first`);
  process.exit(1);
}

const kb = (n) => (n / 1024).toFixed(1) + ' KB';
const gz = (b) => gzipSync(b, { level: 9 }).length;
const TARGET_KB = 150, TARGET_RATIO = 2;

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

console.log(`module size per chapter page (wasm + glue + wrapper). The issue's targets (at most ${TARGET_KB} KB ` +
            `gzipped; wasm at most ${TARGET_RATIO}x native) are for the ${FIRST} page's module; the others are ` +
            'reported for the record');
const wrapper = readFileSync(new URL('../wasm/scaling.js', import.meta.url));
const modules = {};  // chapter -> {mod, calculators}
for (const ch of chapters) {
  const wasm = readFileSync(new URL(`scaling-${ch}.wasm`, dir));
  const glue = readFileSync(new URL(`scaling-${ch}.mjs`, dir));
  const total = gz(wasm) + gz(glue) + gz(wrapper);
  const name = `scaling-${ch}`;
  console.log(`  ${name}`);
  console.log(`    ${(name + '.wasm').padEnd(24)} ${kb(wasm.length).padStart(9)} raw, ${kb(gz(wasm)).padStart(9)} gzipped`);
  for (const [what, bytes] of Object.entries(sections(wasm)))
    console.log(`      ${what.padEnd(22)} ${kb(bytes.length).padStart(9)} raw, ${kb(gz(bytes)).padStart(9)} gzipped`);
  console.log(`    ${(name + '.mjs').padEnd(24)} ${kb(glue.length).padStart(9)} raw, ${kb(gz(glue)).padStart(9)} gzipped`);
  console.log(`    ${'scaling.js'.padEnd(24)} ${kb(wrapper.length).padStart(9)} raw, ${kb(gz(wrapper)).padStart(9)} gzipped`);
  console.log(`    ${'total gzipped'.padEnd(24)} ${kb(total).padStart(9)} (target: at most ${TARGET_KB} KB) ` +
              `${total <= TARGET_KB * 1024 ? 'ok' : 'OVER'}${ch === FIRST ? '' : ' (for the record)'}`);
  const { default: factory } = await import(new URL(`scaling-${ch}.mjs`, dir));
  const mod = await factory({ wasmBinary: wasm });
  modules[ch] = { mod, calculators: JSON.parse(mod.api('{"op":"list"}')).calculators };
}

function wasmNs(mod, req, budgetS) {
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

// Paired samples: in each round every calculator runs natively (a short sb_bench run of that
// calculator alone) and straight after in wasm, so both sides of a pair see the same machine. This
// VM has slow phases lasting seconds, in which a call takes up to 1.5x as long; with whole rounds of
// native then whole rounds of wasm, one side could land in a slow phase and the other not, and the
// same build read 1.7x in one run and 2.4x in the next. The median of the pairs' ratios is reported.
const rounds = 7, budget = 0.08;
const native = {}, inWasm = {}, ratio = {};
const nativeNs = (name) => {
  const out = execFileSync(new URL('../build/native/bin/sb_bench', import.meta.url).pathname, [String(budget), name]);
  const line = out.toString().trim().split('\n')[0];
  return line ? JSON.parse(line).ns_per_call : null;
};
for (let r = 0; r < rounds; r++) {
  for (const { mod, calculators } of Object.values(modules)) {
    for (const c of calculators) {
      const n = nativeNs(c.name);
      if (n === null) continue;
      const w = wasmNs(mod, JSON.stringify({ op: 'calc', name: c.name, inputs: {} }), budget);
      (native[c.name] ??= []).push(n);
      (inWasm[c.name] ??= []).push(w);
      (ratio[c.name] ??= []).push(w / n);
    }
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
console.log(`\ntime per call, each calculator in its own chapter's module (medians of ${rounds} paired rounds; ` +
            `target: wasm at most ${TARGET_RATIO}x native, for the ${FIRST} module)`);
console.log('  calculator'.padEnd(28) + 'native'.padStart(12) + 'wasm'.padStart(12) + 'ratio'.padStart(9));
for (const [ch, { calculators }] of Object.entries(modules)) {
  const ratios = [];
  for (const c of calculators) {
    if (!native[c.name]) {
      console.log(`  ${c.name}`.padEnd(28) + 'not in the native bench (rebuild build/native)'.padStart(12));
      continue;
    }
    const n = median(native[c.name]), w = median(inWasm[c.name]), q = median(ratio[c.name]);
    ratios.push(q);
    console.log(`  ${c.name}`.padEnd(28) + `${(n / 1000).toFixed(2)} us`.padStart(12) +
                `${(w / 1000).toFixed(2)} us`.padStart(12) + `${q.toFixed(2)}x`.padStart(9));
  }
  const geo = Math.exp(ratios.reduce((s, x) => s + Math.log(x), 0) / ratios.length);
  console.log(`  ${ch}: geometric mean ratio ${geo.toFixed(2)}x ${geo <= TARGET_RATIO ? 'ok' : 'OVER'}` +
              `${ch === FIRST ? '' : ' (for the record)'}\n`);
}
