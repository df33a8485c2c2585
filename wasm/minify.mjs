// Minifies the JS a page downloads before its first number: each module's glue in place after the
// link (`node wasm/minify.mjs scaling-<id>.mjs`, CMakeLists.txt), and the wrapper wasm/scaling.js
// as the site build copies it (web/build.mjs, `minifyJs`; bench/run.mjs weighs the same bytes).
// emscripten without closure keeps the glue's long local names (craftInvokerFunction,
// updateGlobalBufferAndViews, ...); terser renames the locals and folds the code, and leaves every
// property name as it is (Module['api'], the wasm imports and exports, the wrapper's exports). No
// eval or new Function is added, so the code still runs under the site's CSP. bench/README.md has
// the sizes.
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';

export async function minifyJs(code) {
  let minify;
  try {
    ({ minify } = await import('terser'));
  } catch {
    throw new Error('wasm/minify.mjs: terser not found in node_modules: run npm ci (scripts/setup.sh)');
  }
  return (await minify(code, { module: true, ecma: 2020, compress: { passes: 2 }, mangle: true })).code;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node wasm/minify.mjs <glue.mjs>');
    process.exit(2);
  }
  try {
    fs.writeFileSync(file, await minifyJs(fs.readFileSync(file, 'utf8')));
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
