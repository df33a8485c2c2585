// `npm run bench`: for every chapter module (build/wasm/bin/scaling-<chapter>.{mjs,wasm}) its size,
// raw and gzipped, and for every calculator the time per call natively (bench/native.cpp, which has
// every chapter) and in wasm under node, in its own chapter's module, paired call by call in one run
// so that machine noise hits both sides alike. The roofline module is measured twice, with the
// embind face the site ships and with the plain C export it replaced (build/wasm/bench/, built by
// scripts/bench.sh), side by side. Prints ratios, not absolute verdicts. bench/README.md explains
// the figures and keeps the history.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { minifyJs } from '../wasm/minify.mjs';

// V8 runs new wasm code in its baseline compiler and optimizes hot functions later, at times that
// vary from run to run; compiling everything optimized up front measures the steady state a page
// reaches after a few calls, the same in every run.
v8.setFlagsFromString('--no-liftoff');

const dir = new URL('../build/wasm/bin/', import.meta.url);
const plainDir = new URL('../build/wasm/bench/', import.meta.url);
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
// Issue 16's targets, for every chapter: a page's first module, and each chapter's geometric mean.
const TARGET_KB = 150, TARGET_RATIO = 1.5;
const verdict = (ok) => (ok ? 'ok' : 'OVER');

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

// The wrapper as the site ships it (web/build.mjs minifies it).
const wrapper = Buffer.from(await minifyJs(readFileSync(new URL('../wasm/scaling.js', import.meta.url), 'utf8')));

// A module's files and the total a page downloads for it (wasm + glue + wrapper, gzipped).
function sizes(where, ch) {
  const wasm = readFileSync(new URL(`scaling-${ch}.wasm`, where));
  const glue = readFileSync(new URL(`scaling-${ch}.mjs`, where));
  return { wasm, glue, total: gz(wasm) + gz(glue) + gz(wrapper) };
}

async function instantiate(where, ch, wasm) {
  const { default: factory } = await import(new URL(`scaling-${ch}.mjs`, where));
  return factory({ wasmBinary: wasm });
}

const row = (what, bytes, width = 24) =>
  `${what.padEnd(width)} ${kb(bytes.length).padStart(9)} raw, ${kb(gz(bytes)).padStart(9)} gzipped`;

console.log(`each chapter page's first module, its calculators (wasm + glue + wrapper; target at most ${TARGET_KB} KB ` +
            'gzipped), and its exercises module, which the page loads once the first is in');
const modules = {};  // chapter -> {mod, plain?, calculators}
for (const ch of chapters) {
  const { wasm, glue, total } = sizes(dir, ch);
  const name = `scaling-${ch}`;
  console.log(`  ${name}`);
  console.log(`    ${row(name + '.wasm', wasm)}`);
  for (const [what, bytes] of Object.entries(sections(wasm))) console.log(`      ${row(what, bytes, 22)}`);
  console.log(`    ${row(name + '.mjs', glue)}`);
  console.log(`    ${row('scaling.js', wrapper)}`);
  console.log(`    ${'total gzipped'.padEnd(24)} ${kb(total).padStart(9)} (target: at most ${TARGET_KB} KB) ` +
              `${verdict(total <= TARGET_KB * 1024)}`);
  if (existsSync(new URL(`scaling-${ch}-problems.wasm`, dir))) {
    const ex = sizes(dir, `${ch}-problems`);
    console.log(`    ${'exercises module'.padEnd(24)} ${kb(ex.total - gz(wrapper)).padStart(9)} gzipped (wasm + glue), after the first number`);
  }
  const mod = await instantiate(dir, ch, wasm);
  modules[ch] = { mod, calculators: JSON.parse(mod.api('{"op":"list"}')).calculators };
  // Heavy calculators are computed by the chapter's second module, which the page's worker loads.
  if (modules[ch].calculators.some((c) => c.heavy)) {
    console.log(`    ${'(heavy calculators)'.padEnd(24)} in the exercises module, which the page's worker loads too`);
    modules[ch].heavy = await instantiate(dir, `${ch}-problems`, readFileSync(new URL(`scaling-${ch}-problems.wasm`, dir)));
  }
}

// The embind face beside the plain C export, for the roofline module.
const hasPlain = existsSync(new URL(`scaling-${FIRST}.wasm`, plainDir));
if (!hasPlain) {
  console.log(`\n(no plain-export build in ${plainDir.pathname}: scripts/bench.sh builds it, ` +
              'cmake --build --preset wasm --target scaling_roofline_plain)');
} else {
  const e = sizes(dir, FIRST), p = sizes(plainDir, FIRST);
  console.log(`\nthe ${FIRST} module's face: embind (shipped) vs the plain C export it replaced, gzipped`);
  console.log('  '.padEnd(26) + 'embind'.padStart(10) + 'plain'.padStart(10) + 'embind - plain'.padStart(17));
  const line = (what, a, b) => console.log(`  ${what.padEnd(24)}${kb(a).padStart(10)}${kb(b).padStart(10)}${kb(a - b).padStart(17)}`);
  line('wasm', gz(e.wasm), gz(p.wasm));
  line('glue (.mjs)', gz(e.glue), gz(p.glue));
  line('scaling.js', gz(wrapper), gz(wrapper));
  line('total', e.total, p.total);
  console.log(`  target at most ${TARGET_KB} KB: embind ${verdict(e.total <= TARGET_KB * 1024)}, ` +
              `plain ${verdict(p.total <= TARGET_KB * 1024)}`);
  const plain = await instantiate(plainDir, FIRST, p.wasm);
  const probe = '{"op":"calc","name":"roofline.matmul","inputs":{}}';
  if (plain.api(probe) !== modules[FIRST].mod.api(probe)) throw new Error('bench: the plain and embind builds answer differently');
  modules[FIRST].plain = plain;
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
// calculator alone) and straight after in wasm (both faces for the roofline module, in alternating
// order), so every side of a pair sees the same machine. This VM has slow phases lasting seconds, in
// which a call takes up to 1.5x as long; with whole rounds of native then whole rounds of wasm, one
// side could land in a slow phase and the other not, and the same build read 1.7x in one run and
// 2.4x in the next. The median of the pairs' ratios is reported.
const rounds = 7, budget = 0.08;
const samples = {};  // calculator -> {native: [], embind: [], plain: [], embindRatio: [], plainRatio: []}
const nativeNs = (name) => {
  const out = execFileSync(new URL('../build/native/bin/sb_bench', import.meta.url).pathname, [String(budget), name]);
  const line = out.toString().trim().split('\n')[0];
  return line ? JSON.parse(line).ns_per_call : null;
};
for (let r = 0; r < rounds; r++) {
  for (const { mod, plain, heavy, calculators } of Object.values(modules)) {
    for (const c of calculators) {
      const n = nativeNs(c.name);
      if (n === null) continue;
      const req = JSON.stringify({ op: 'calc', name: c.name, inputs: {} });
      const s = (samples[c.name] ??= { native: [], embind: [], plain: [], embindRatio: [], plainRatio: [] });
      const faces = c.heavy ? [['embind', heavy]] : plain ? [['embind', mod], ['plain', plain]] : [['embind', mod]];
      if (r % 2) faces.reverse();
      s.native.push(n);
      for (const [face, m] of faces) {
        const w = wasmNs(m, req, budget);
        s[face].push(w);
        s[face + 'Ratio'].push(w / n);
      }
    }
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const geomean = (a) => Math.exp(a.reduce((s, x) => s + Math.log(x), 0) / a.length);
const us = (ns) => `${(ns / 1000).toFixed(2)} us`;
console.log(`\ntime per call, each calculator in its own chapter's module (medians of ${rounds} paired rounds; ` +
            `target: each chapter's geometric mean at most ${TARGET_RATIO}x native)`);
console.log('  calculator'.padEnd(28) + 'native'.padStart(11) + 'embind'.padStart(11) + 'ratio'.padStart(8) +
            (hasPlain ? 'plain'.padStart(11) + 'ratio'.padStart(8) : ''));
for (const [ch, { calculators, plain }] of Object.entries(modules)) {
  const ratios = { embind: [], plain: [] };
  for (const c of calculators) {
    const s = samples[c.name];
    if (!s) {
      console.log(`  ${c.name}`.padEnd(28) + 'not in the native bench (rebuild build/native)'.padStart(12));
      continue;
    }
    let text = `  ${c.name}`.padEnd(28) + us(median(s.native)).padStart(11);
    for (const face of plain ? ['embind', 'plain'] : ['embind']) {
      const q = median(s[face + 'Ratio']);
      ratios[face].push(q);
      text += us(median(s[face])).padStart(11) + `${q.toFixed(2)}x`.padStart(8);
    }
    console.log(text);
  }
  const e = geomean(ratios.embind);
  let text = `  ${ch}: geometric mean ratio, embind ${e.toFixed(2)}x ${verdict(e <= TARGET_RATIO)}`;
  if (plain) {
    const p = geomean(ratios.plain);
    text += `; plain export ${p.toFixed(2)}x ${verdict(p <= TARGET_RATIO)}`;
  }
  console.log(text + '\n');
}

// The latency-throughput sweep (inference.frontier at its defaults: LLaMA 3-70B on every v5e slice,
// four dtype sets, 32 batches each, 8192-token contexts), from the pairs above: its size, and the
// configurations it evaluates per second natively and in wasm, side by side.
const SWEEP = 'inference.frontier';
if (samples[SWEEP] && modules.inference) {
  const r = JSON.parse(modules.inference.heavy.api(JSON.stringify({ op: 'calc', name: SWEEP, inputs: {} })));  // heavy
  const configs = r.values.configs.value;
  const s = samples[SWEEP];
  const nat = median(s.native), was = median(s.embind);
  const rate = (ns) => `${(configs / (ns * 1e-9)).toExponential(2)} configurations/s`;
  console.log(`the latency-throughput sweep (${SWEEP} at its defaults: ${configs} configurations, ` +
              `${r.values.front.value} on the Pareto front; medians of ${rounds} paired rounds)`);
  console.log(`  ${'native'.padEnd(8)} ${us(nat).padStart(11)} per sweep, ${rate(nat)}`);
  console.log(`  ${'wasm'.padEnd(8)} ${us(was).padStart(11)} per sweep, ${rate(was)}, ` +
              `${median(s.embindRatio).toFixed(2)}x native`);
  console.log();
}

// The training planner's whole search on a full v5p pod: training.plan at its defaults (LLaMA 3-70B,
// 16x20x28, 4M tokens), from the pairs above, per configuration evaluated; and the instructions of
// one search under callgrind (inside sb::training::plan only, sb_bench_planner --once). Targets
// (issue 11): at most 3e7 instructions per search and 40 ns per configuration natively; a search
// well inside a 16 ms frame in wasm.
const PLAN = 'training.plan';
if (samples[PLAN] && modules.training) {
  const r = JSON.parse(modules.training.heavy.api(JSON.stringify({ op: 'calc', name: PLAN, inputs: {} })));  // heavy
  const configs = r.values.configs.value;
  const s = samples[PLAN];
  const nat = median(s.native), was = median(s.embind);
  const per = (ns) => `${(ns / configs).toFixed(1)} ns`;
  console.log(`the training planner, whole search on a full v5p pod (${r.values.chips.value} chips, ${configs} configurations, ` +
              `${r.values.assignments.value} axis assignments; medians of ${rounds} paired rounds)`);
  console.log(`  ${'native'.padEnd(8)} ${us(nat).padStart(11)} per search, ${per(nat).padStart(8)} per configuration ` +
              `(target: at most 40 ns) ${verdict(nat / configs <= 40)}`);
  console.log(`  ${'wasm'.padEnd(8)} ${us(was).padStart(11)} per search, ${per(was).padStart(8)} per configuration, ` +
              `${median(s.embindRatio).toFixed(2)}x native (a 16 ms frame: ${verdict(was <= 16e6)})`);
  const planner = new URL('../build/native/bin/sb_bench_planner', import.meta.url).pathname;
  let valgrind = true;
  try { execFileSync('valgrind', ['--version']); } catch { valgrind = false; }
  if (!valgrind || !existsSync(planner)) {
    console.log('  (no valgrind or no build/native/bin/sb_bench_planner: instructions not counted)');
  } else {
    const out = `/tmp/sb-callgrind-${process.pid}.out`;
    execFileSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, '--toggle-collect=sb::training::plan(*', planner, '--once'],
      { stdio: ['ignore', 'ignore', 'ignore'] });
    const instr = Number(readFileSync(out, 'utf8').match(/^summary: (\d+)/m)?.[1]);
    execFileSync('rm', ['-f', out]);
    console.log(`  ${'callgrind'.padEnd(8)} ${instr.toExponential(2).padStart(11)} instructions per search, ` +
                `${(instr / configs).toFixed(0)} per configuration (target: at most 3e7) ${verdict(instr <= 3e7)}`);
  }
  console.log();
}

// The HLO reader on a 10 MB module, natively and in wasm (bench/hlo.mjs).
await (await import('./hlo.mjs')).benchHlo();
