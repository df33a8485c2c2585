// Prints the TypeScript type of every calculator's payload (its members besides name, inputs,
// values, verdict, notes and trace), inferred from the built modules' real responses over every
// chip its chip param offers: the `CalcPayloads` block of wasm/scaling.d.ts. A chapter that adds
// a calculator or changes a payload runs it, names the shared shapes and writes words on them;
// tests/types/check.mjs then holds the modules to it.
//   node tests/types/infer.mjs [calculator-name-prefix]     (SB_WASM_BIN: another folder of modules)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { wrap } from '../../wasm/scaling.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.resolve(process.env.SB_WASM_BIN || path.join(root, 'build', 'wasm', 'bin'));
const only = process.argv[2] || '';
const BASE = new Set(['ok', 'name', 'inputs', 'values', 'verdict', 'notes', 'trace']);

// A shape: {k: 'null' | 'number' | 'string' | 'boolean'} | {k: 'array', e} | {k: 'object', f, n}
// | {k: 'union', items}; an object's member present in fewer of its samples is optional.
function shape(v) {
  if (v === null) return { k: 'null' };
  if (Array.isArray(v)) { let e = null; for (const x of v) e = merge(e, shape(x)); return { k: 'array', e }; }
  if (typeof v === 'object') { const f = {}; for (const [k, x] of Object.entries(v)) f[k] = { s: shape(x), n: 1 }; return { k: 'object', f, n: 1 }; }
  return { k: typeof v };
}
function merge(a, b) {
  if (!a) return b; if (!b) return a;
  if (a.k === 'union' || b.k === 'union' || a.k !== b.k) {
    const items = [...(a.k === 'union' ? a.items : [a]), ...(b.k === 'union' ? b.items : [b])];
    const out = [];
    for (const it of items) { const i = out.findIndex((o) => o.k === it.k); if (i >= 0) out[i] = merge(out[i], it); else out.push(it); }
    return out.length === 1 ? out[0] : { k: 'union', items: out };
  }
  if (a.k === 'array') return { k: 'array', e: merge(a.e, b.e) };
  if (a.k === 'object') {
    const f = {}; const n = a.n + b.n;
    for (const k of new Set([...Object.keys(a.f), ...Object.keys(b.f)])) {
      const x = a.f[k], y = b.f[k];
      f[k] = { s: merge(x?.s, y?.s), n: (x?.n || 0) + (y?.n || 0) };
    }
    return { k: 'object', f, n };
  }
  return a;
}
function ts(s, ind = '') {
  if (!s) return 'never';
  switch (s.k) {
    case 'null': return 'null';
    case 'number': case 'string': case 'boolean': return s.k;
    case 'array': { const t = ts(s.e, ind); return /[|&]/.test(t) && !t.startsWith('{') ? `(${t})[]` : `${t}[]`; }
    case 'union': return s.items.map((x) => ts(x, ind)).join(' | ');
    case 'object': {
      const keys = Object.keys(s.f);
      if (!keys.length) return 'Record<string, never>';
      const lines = keys.map((k) => `${ind}  ${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}${s.f[k].n < s.n ? '?' : ''}: ${ts(s.f[k].s, ind + '  ')};`);
      return `{\n${lines.join('\n')}\n${ind}}`;
    }
  }
}
const out = [];
for (const f of fs.readdirSync(bin).filter((x) => /^scaling-[a-z_0-9]+\.mjs$/.test(x)).sort()) {
  const { default: factory } = await import(path.join(bin, f));
  const open = async (file) => wrap(await (await import(path.join(bin, file))).default({ wasmBinary: fs.readFileSync(path.join(bin, file.replace(/\.mjs$/, '.wasm'))) }));
  const first = wrap(await factory({ wasmBinary: fs.readFileSync(path.join(bin, f.replace(/\.mjs$/, '.wasm'))) }));
  let heavy = null;  // the chapter's second module, for its heavy calculators
  for (const c of first.list().calculators) {
    if (!c.name.startsWith(only)) continue;
    const sb = c.heavy ? (heavy ??= await open(f.replace(/\.mjs$/, '-problems.mjs'))) : first;
    const chip = c.params.find((p) => p.chip);
    let acc = null;
    for (const value of chip ? chip.choices : [null]) {
      const r = sb.calc(c.name, value === null ? {} : { [chip.name]: value });
      if (r.ok) acc = merge(acc, shape(Object.fromEntries(Object.entries(r).filter(([k]) => !BASE.has(k)))));
    }
    out.push(`  ${JSON.stringify(c.name)}: ${acc && Object.keys(acc.f).length ? ts(acc, '  ') : 'NoPayload'};`);
  }
}
console.log(`export interface CalcPayloads {\n${out.join('\n')}\n}`);
