// Every chapter page's module compiles while it downloads: the emscripten 3.1.6 glue
// (-sENVIRONMENT=web) fetches the .wasm and passes the response to WebAssembly.instantiateStreaming,
// which needs the server to send Content-Type application/wasm; with any other type it warns and
// falls back to compiling the whole buffer after the download. The page preloads the .wasm
// (web/build.mjs), and the loader's fetch must reuse that download.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSite, startSite } from './harness.mjs';
import { chapterPages, loadPage } from './pageload.mjs';

test('each chapter page instantiates its modules with instantiateStreaming, served as application/wasm', async () => {
  const pages = chapterPages(await buildSite());
  assert.ok(pages.length > 0, 'the catalogue names chapter pages');
  const site = await startSite();
  try {
    // A page beyond the book ("page": true: validation) has no exercises, and its one calculator
    // is heavy: it computes in the page's worker, which this hook does not see.
    for (const { id, file } of pages.filter((p) => !p.page)) {
      const r = await loadPage(site, file);
      // Its two modules, calculators and exercises, each instantiated while it downloads.
      const wasm = [`scaling-${id}-problems.wasm`, `scaling-${id}.wasm`];
      assert.deepEqual(r.wasmFiles, wasm, file);
      assert.equal(r.streaming, wasm.length, `${file}: one instantiateStreaming per module`);
      assert.equal(r.buffer, 0, `${file}: no fallback to an ArrayBuffer`);
      assert.deepEqual(r.mime, wasm.map(() => 'application/wasm'), file);
      // The page's preload hint and the loader's fetch match (cors mode), so the bytes come once.
      assert.equal(r.wasmRequests, wasm.length, `${file}: each wasm is downloaded once`);
      assert.ok(r.wasm !== null && r.first !== null, `${file}: the module answered and a calculator shows a number`);
    }
    site.assertClean();
  } finally {
    await site.close();
  }
});
