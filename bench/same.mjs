// Do two builds of the wasm modules answer alike? For a change meant to move bytes, not answers:
//   node bench/same.mjs OLD_DIR [NEW_DIR]      (NEW_DIR: build/wasm/bin)
// Copy the old build's bin/*.{mjs,wasm} aside first. For every chapter in both, every calculator of
// the new `list` gets its defaults, each number param at its min and max (and past them), each
// choice param at every choice, and a few bad inputs; every problem its default, a check and two
// variants; and the shared ops. Each response must be the same text in both builds. A calculator
// is asked of the module that computes it in each build: the first, or where `list` marks it heavy,
// the chapter's heavy module in a build that has one (before the thirteenth pass), else its second.
// `list` itself may differ only in `heavy`.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [oldDir, newDir = new URL('../build/wasm/bin/', import.meta.url).pathname] = process.argv.slice(2);
if (!oldDir) {
  console.error('usage: node bench/same.mjs OLD_DIR [NEW_DIR]');
  process.exit(2);
}

async function open(dir, name) {
  const file = path.join(dir, `${name}.mjs`);
  if (!fs.existsSync(file)) return null;
  const { default: factory } = await import(pathToFileURL(path.resolve(file)).href);
  const mod = await factory({ wasmBinary: fs.readFileSync(path.join(dir, `${name}.wasm`)) });
  return (req) => mod.api(typeof req === 'string' ? req : JSON.stringify(req));
}

// The module of a build that computes calculator `c`.
const calcIn = (m, c) => (c.heavy && m.heavy ? m.heavy : m.first);

const chapters = fs.readdirSync(newDir).map((f) => f.match(/^scaling-([a-z_][a-z0-9_]*)\.wasm$/)?.[1]).filter(Boolean).sort();
let asked = 0, differ = 0;
const report = (what, a, b) => {
  asked += 1;
  if (a === b) return;
  differ += 1;
  if (differ <= 20) console.log(`DIFFERS ${what}\n  old ${a.slice(0, 300)}\n  new ${b.slice(0, 300)}`);
};
const dropHeavy = (text) => {
  const r = JSON.parse(text);
  for (const c of r.calculators || []) delete c.heavy;
  return JSON.stringify(r);
};

for (const ch of chapters) {
  // A build before the thirteenth pass has a third module for the heavy calculators; since, the
  // second computes them.
  const both = async (dir) => {
    const m = { first: await open(dir, `scaling-${ch}`), problems: await open(dir, `scaling-${ch}-problems`) };
    m.heavy = (await open(dir, `scaling-${ch}-heavy`)) || m.problems;
    return m;
  };
  const o = await both(oldDir);
  const n = await both(newDir);
  if (!o.first) { console.log(`${ch}: not in ${oldDir}`); continue; }
  const list = JSON.parse(n.first({ op: 'list' }));
  report(`${ch} list (heavy aside)`, dropHeavy(o.first({ op: 'list' })), dropHeavy(n.first({ op: 'list' })));
  for (const op of ['chips', 'units', 'formulas', { op: 'parse', text: '45 GB/s', unit: 'B_per_s' }, { op: 'parse', text: '4 parsecs', unit: 's' }, { op: 'nope' }, '{"op":', '[]']) {
    const req = typeof op === 'string' && !op.startsWith('{') && !op.startsWith('[') ? { op } : op;
    report(`${ch} ${JSON.stringify(req)}`, o.first(req), n.first(req));
  }
  const oldList = JSON.parse(o.first({ op: 'list' }));
  for (const c of list.calculators) {
    const oc = oldList.calculators.find((x) => x.name === c.name) || c;
    const ask = (inputs) => {
      const req = { op: 'calc', name: c.name, inputs };
      report(`${c.name} ${JSON.stringify(inputs).slice(0, 120)}`, calcIn(o, oc)(req), calcIn(n, c)(req));
    };
    ask({});
    for (const p of c.params) {
      if (p.long_text) continue;  // its default is the calculator's default call
      if (p.choices) for (const v of p.choices) ask({ [p.name]: v });
      if (typeof p.min === 'number') ask({ [p.name]: p.min }), ask({ [p.name]: p.min - 1 });
      if (typeof p.max === 'number') ask({ [p.name]: p.max }), ask({ [p.name]: p.max * 2 + 1 });
      ask({ [p.name]: 'not a value' });
      ask({ [p.name]: [] });
    }
    ask({ no_such_input: 1 });
  }
  if (o.problems && n.problems) {
    const probs = JSON.parse(n.problems({ op: 'list' })).problems;
    for (const p of probs) {
      for (const req of [{ op: 'problem', id: p.id }, { op: 'variant', id: p.id, seed: 7 }, { op: 'variant', id: p.id, seed: 12345 }, { op: 'check', id: p.id, answers: { x: '1' } }])
        report(`${p.id} ${req.op}`, o.problems(req), n.problems(req));
    }
  }
}
console.log(`${asked} requests, ${differ} answered otherwise`);
process.exit(differ ? 1 : 0);
