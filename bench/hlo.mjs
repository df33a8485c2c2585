// The HLO reader on a 10 MB module (issue 19: under 1 s on the CI machine), natively (sb_bench
// --hlo: the parse alone and the whole profiling.hlo call) and in wasm (the whole call in the
// profiling chapter's second module, which the page's worker runs), side by side in one run.
// `node bench/hlo.mjs` runs it alone; `npm run bench` runs it last.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

const BYTES = 10 * 1024 * 1024;

// A module as a TPU compile prints it, of about `bytes`: fused computations of a dot and a
// convert, each called by a fusion in the entry, with collectives, async pairs and long metadata.
export function longModule(bytes) {
  const L = '{2,1,0:T(8,128)(2,1)}', W = '{1,0:T(8,128)(2,1)}';
  const comps = [], entry = ['ENTRY %main (p0: bf16[8,1024,8192], p1: bf16[8192,16384]) -> bf16[8,1024,8192] {',
    `  %p0 = bf16[8,1024,8192]${L} parameter(0), metadata={op_name="x"}`,
    `  %p1 = bf16[8192,16384]${W} parameter(1), metadata={op_name="w"}`];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const c = [`%fused_computation.${i} (param_0.${i}: bf16[8,1024,8192], param_1.${i}: bf16[8192,16384]) -> bf16[8,1024,16384] {`,
      `  %param_0.${i} = bf16[8,1024,8192]${L} parameter(0)`,
      `  %param_1.${i} = bf16[8192,16384]${W} parameter(1)`,
      `  %dot.${i} = f32[8,1024,16384]${L} dot(bf16[8,1024,8192]${L} %param_0.${i}, bf16[8192,16384]${W} %param_1.${i}), lhs_contracting_dims={2}, rhs_contracting_dims={0}, metadata={op_name="jit(step)/dot_general" source_file="model.py" source_line=${i}}`,
      `  ROOT %convert.${i} = bf16[8,1024,16384]${L} convert(f32[8,1024,16384]${L} %dot.${i})`, '}', ''];
    const e = [`  %fusion.${i} = bf16[8,1024,16384]${L} fusion(bf16[8,1024,8192]${L} %p0, bf16[8192,16384]${W} %p1), kind=kOutput, calls=%fused_computation.${i}, backend_config={"flag_configs":[],"scoped_memory_configs":[{"memory_space":"1","offset":"0","size":"8388608"}]}`,
      `  %all-reduce-start.${i} = bf16[8,1024,16384]${L} all-reduce-start(bf16[8,1024,16384]${L} %fusion.${i}), channel_id=${i + 1}, replica_groups=[4,2]<=[8], use_global_device_ids=true, to_apply=%add`,
      `  %all-reduce-done.${i} = bf16[8,1024,16384]${L} all-reduce-done(bf16[8,1024,16384]${L} %all-reduce-start.${i})`,
      `  %slice.${i} = bf16[8,1024,8192]${L} slice(bf16[8,1024,16384]${L} %all-reduce-done.${i}), slice={[0:8], [0:1024], [0:8192]}`];
    for (const s of [...c, ...e]) size += s.length + 1;
    comps.push(...c);
    entry.push(...e);
  }
  entry.push(`  ROOT %out = bf16[8,1024,8192]${L} copy(bf16[8,1024,8192]${L} %p0)`, '}');
  return ['HloModule jit_long, is_scheduled=true', '', ...comps, ...entry].join('\n') + '\n';
}

export async function benchHlo() {
  const bin = new URL('../build/native/bin/sb_bench', import.meta.url).pathname;
  const dir = new URL('../build/wasm/bin/', import.meta.url);
  if (!existsSync(bin) || !existsSync(new URL('scaling-profiling-problems.wasm', dir))) {
    console.log('the HLO reader: no sb_bench or scaling-profiling-problems (build both first)');
    return;
  }
  const text = longModule(BYTES);
  const file = `/tmp/sb-hlo-${process.pid}.txt`;
  writeFileSync(file, text);
  const nat = JSON.parse(execFileSync(bin, ['--hlo', file]).toString().trim());
  rmSync(file);
  const { default: factory } = await import(new URL('scaling-profiling-problems.mjs', dir));
  const mod = await factory({ wasmBinary: readFileSync(new URL('scaling-profiling-problems.wasm', dir)) });
  const req = JSON.stringify({ op: 'calc', name: 'profiling.hlo', inputs: { module: text } });
  // The call (the text in, the parse, the costs, the response written) apart from the page's
  // reading of its 19 MB response (JSON.parse), each timed on its own: the target is the call's.
  const ms = [], cpu = [], readMs = [], readCpu = [];
  let ok = false;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now(), c0 = process.cpuUsage();
    const out = mod.api(req);
    ms.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    const t1 = performance.now(), c1 = process.cpuUsage();
    ok = JSON.parse(out).ok;
    readMs.push(performance.now() - t1);
    const r = process.cpuUsage(c1);
    readCpu.push((r.user + r.system) / 1000);
  }
  for (const a of [ms, cpu, readMs, readCpu]) a.sort((x, y) => x - y);
  const v = (t) => (t <= 1000 ? 'ok' : 'OVER');
  const [l1, l5] = loadavg();
  console.log(`the HLO reader on a ${(nat.bytes / 1048576).toFixed(1)} MiB module (${nat.instructions} instructions; medians of 3; target under 1 s; load average ${l1.toFixed(1)} (1 min), ${l5.toFixed(1)} (5 min) on 2 cores)`);
  // CPU time beside wall time: on a loaded machine the wall time is mostly waiting for a core, so
  // the verdict is the CPU time's.
  console.log(`  native parse        ${nat.parse_ms.toFixed(0).padStart(7)} ms (CPU ${nat.parse_cpu_ms.toFixed(0)} ms) ${v(nat.parse_cpu_ms)}`);
  console.log(`  native whole call   ${nat.calc_ms.toFixed(0).padStart(7)} ms (CPU ${nat.calc_cpu_ms.toFixed(0)} ms) ${v(nat.calc_cpu_ms)}`);
  console.log(`  wasm whole call     ${ms[1].toFixed(0).padStart(7)} ms (CPU ${cpu[1].toFixed(0)} ms) ${v(cpu[1])}, ${(cpu[1] / nat.calc_cpu_ms).toFixed(2)}x native by CPU${ok ? '' : ' (the call failed)'}`);
  console.log(`  JS reading its JSON ${readMs[1].toFixed(0).padStart(7)} ms (CPU ${readCpu[1].toFixed(0)} ms), in the page's worker after the call`);
  console.log();
}

if (import.meta.url === `file://${process.argv[1]}`) await benchHlo();
