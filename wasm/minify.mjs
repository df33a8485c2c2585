// Minifies a module's JS glue in place after the link: `node wasm/minify.mjs scaling-<id>.mjs`.
// emscripten without closure keeps the glue's long local names (craftInvokerFunction,
// updateGlobalBufferAndViews, ...); terser renames the locals and folds the code, and leaves every
// property name as it is (Module['api'], the wasm imports and exports). No eval or new Function is
// added, so the module still runs under the site's CSP. bench/README.md has the sizes.
import fs from 'node:fs';

const file = process.argv[2];
if (!file) {
  console.error('usage: node wasm/minify.mjs <glue.mjs>');
  process.exit(2);
}
let minify;
try {
  ({ minify } = await import('terser'));
} catch {
  console.error('wasm/minify.mjs: terser not found in node_modules: run npm ci (scripts/setup.sh)');
  process.exit(1);
}
const code = fs.readFileSync(file, 'utf8');
const out = await minify(code, { module: true, ecma: 2020, compress: { passes: 2 }, mangle: true });
fs.writeFileSync(file, out.code);
