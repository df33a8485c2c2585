// Assembles the static site into build/site/: pages, css, widget library, chapter widgets, the
// JS wrapper and wasm module, and vendored KaTeX and uPlot (no CDN: the site serves everything).
//   node web/build.mjs            SB_WASM_DIR overrides where scaling.{mjs,wasm} are taken from
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const defaultOut = path.join(root, 'build', 'site');
const wasmDir = process.env.SB_WASM_DIR ? path.resolve(process.env.SB_WASM_DIR) : path.join(root, 'build', 'wasm', 'bin');

function copy(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true });
}

// `out` lets a test run assemble a site of its own instead of build/site.
export function build({ quiet = false, out = defaultOut } = {}) {
  const missing = ['scaling.mjs', 'scaling.wasm'].filter((f) => !fs.existsSync(path.join(wasmDir, f)));
  if (missing.length) {
    throw new Error(`${missing.join(', ')} not found in ${wasmDir}: build the wasm module first ` +
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
  for (const f of ['scaling.mjs', 'scaling.wasm']) copy(path.join(wasmDir, f), path.join(out, 'wasm', f));

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
  try {
    build();
  } catch (e) {
    console.error(`build:web: ${e.message}`);
    process.exit(1);
  }
}
