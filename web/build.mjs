// Assembles the static site into build/site/: pages, css, widget library, chapter widgets, the
// JS wrapper and one wasm module per chapter, the catalogue and chip tables as JSON, and vendored
// KaTeX and uPlot (no CDN: the site serves everything).
//   node web/build.mjs            SB_WASM_DIR overrides where scaling-<chapter>.{mjs,wasm} are taken from
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const defaultOut = path.join(root, 'build', 'site');
const wasmDir = process.env.SB_WASM_DIR ? path.resolve(process.env.SB_WASM_DIR) : path.join(root, 'build', 'wasm', 'bin');

function copy(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true });
}

// The chapters that have a module: the folders chapters/<name>/ with a register.cpp, as CMake
// finds them (CMakeLists.txt makes scaling-<name>.{mjs,wasm} of each).
export function chapters() {
  const dir = path.join(root, 'chapters');
  return fs.readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && /^[a-z_][a-z0-9_]*$/.test(d.name) && fs.existsSync(path.join(dir, d.name, 'register.cpp')))
    .map((d) => d.name)
    .sort();
}

// Asks a built module (under node) for one response; the module must answer ok.
async function ask(chapter, ops) {
  const mjs = path.join(wasmDir, `scaling-${chapter}.mjs`);
  const { default: factory } = await import(pathToFileURL(mjs).href);
  const mod = await factory({ wasmBinary: fs.readFileSync(path.join(wasmDir, `scaling-${chapter}.wasm`)) });
  const out = {};
  for (const op of ops) {
    const r = JSON.parse(mod.api(JSON.stringify({ op })));
    if (!r.ok) throw new Error(`scaling-${chapter}: ${op} failed: ${r.error?.message}`);
    out[op] = r;
  }
  return out;
}

// data/catalog.json: the `list` responses of all chapter modules merged, where the home page and
// every widget look up names without loading a module; data/chips.json: the `chips` response, the
// same in every module since the chip tables belong to the core.
async function writeData(out, chs) {
  const catalog = { ok: true, calculators: [], problems: [] };
  let chips = null;
  for (const ch of chs) {
    const r = await ask(ch, ['list', 'chips']);
    // A module holds its own chapter only (the link leaves the others out).
    const stray = [...r.list.calculators.map((c) => c.chapter), ...r.list.problems.map((p) => p.chapter)].find((c) => c !== ch);
    if (stray) throw new Error(`scaling-${ch} lists entries of chapter ${stray}: rebuild the wasm modules`);
    catalog.calculators.push(...r.list.calculators);
    catalog.problems.push(...r.list.problems);
    const text = JSON.stringify(r.chips);
    if (chips !== null && text !== chips) throw new Error(`scaling-${ch} has other chip tables than scaling-${chs[0]}: rebuild the wasm modules`);
    chips = text;
  }
  fs.mkdirSync(path.join(out, 'data'), { recursive: true });
  fs.writeFileSync(path.join(out, 'data', 'catalog.json'), JSON.stringify(catalog));
  fs.writeFileSync(path.join(out, 'data', 'chips.json'), chips);
}

// `out` lets a test run assemble a site of its own instead of build/site.
export async function build({ quiet = false, out = defaultOut } = {}) {
  const chs = chapters();
  const files = chs.flatMap((ch) => [`scaling-${ch}.mjs`, `scaling-${ch}.wasm`]);
  const missing = files.filter((f) => !fs.existsSync(path.join(wasmDir, f)));
  if (missing.length) {
    throw new Error(`${missing.join(', ')} not found in ${wasmDir}: build the wasm modules first ` +
      '(NODE_PATH=/usr/share/nodejs cmake --preset wasm && cmake --build --preset wasm)');
  }
  const nm = path.join(root, 'node_modules');
  for (const dep of ['katex', 'uplot']) {
    if (!fs.existsSync(path.join(nm, dep))) throw new Error(`node_modules/${dep} missing: run npm install`);
  }
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });

  const web = path.join(root, 'web');
  for (const f of fs.readdirSync(web)) if (f.endsWith('.html')) copy(path.join(web, f), path.join(out, f));
  for (const d of ['css', 'lib', 'widgets']) if (fs.existsSync(path.join(web, d))) copy(path.join(web, d), path.join(out, d));

  copy(path.join(root, 'wasm', 'scaling.js'), path.join(out, 'wasm', 'scaling.js'));
  copy(path.join(root, 'wasm', 'scaling.d.ts'), path.join(out, 'wasm', 'scaling.d.ts'));
  for (const f of files) copy(path.join(wasmDir, f), path.join(out, 'wasm', f));
  await writeData(out, chs);

  const katex = path.join(nm, 'katex', 'dist');
  copy(path.join(katex, 'katex.mjs'), path.join(out, 'vendor', 'katex', 'katex.mjs'));
  copy(path.join(katex, 'katex.min.css'), path.join(out, 'vendor', 'katex', 'katex.min.css'));
  // The stylesheet refers to fonts/KaTeX_*.woff2 (and .woff/.ttf fallbacks); ship them all.
  copy(path.join(katex, 'fonts'), path.join(out, 'vendor', 'katex', 'fonts'));
  const uplot = path.join(nm, 'uplot', 'dist');
  copy(path.join(uplot, 'uPlot.esm.js'), path.join(out, 'vendor', 'uplot', 'uPlot.esm.js'));
  copy(path.join(uplot, 'uPlot.min.css'), path.join(out, 'vendor', 'uplot', 'uPlot.min.css'));
  for (const [dep, file] of [['katex', 'LICENSE'], ['uplot', 'LICENSE']]) {
    const lic = path.join(nm, dep, file);
    if (fs.existsSync(lic)) copy(lic, path.join(out, 'vendor', dep, 'LICENSE'));
  }
  if (!quiet) console.log(`site built in ${path.relative(process.cwd(), out) || out}`);
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  build().catch((e) => {
    console.error(`build:web: ${e.message}`);
    process.exit(1);
  });
}
