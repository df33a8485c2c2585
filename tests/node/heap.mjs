// The request caps as the node tests build requests at them, and the heap bound over a share of
// the chapter modules: heap.first.test.mjs and heap.second.test.mjs each take half, so node's two
// test lanes share the layer's longest work (memory.test.mjs has the caps' own tests).
import assert from 'node:assert/strict';
import { chapterModules, instantiate } from './modules.mjs';

export const CAP = 1 << 20;  // bytes of UTF-8 of a request without a long text (core/json.hpp)
export const LONG_TEXT = 16 << 20;  // a long-text input, decoded
export const LONG_CAP = 33 << 20;  // a request carrying one: core/json.hpp and wasm/api.post.js

// A valid request whose UTF-8 is exactly `bytes` long: the parse op of `text`, then spaces.
export function requestOf(bytes, text = '1 s') {
  const req = JSON.stringify({ op: 'parse', text, unit: 's' });
  return req + ' '.repeat(bytes - Buffer.byteLength(req));
}

// A calc request with `text` as input `name`, padded with spaces to `bytes` if given.
export function calcWith(calc, name, text, bytes = 0) {
  const req = JSON.stringify({ op: 'calc', name: calc, inputs: { [name]: text } });
  return req + ' '.repeat(Math.max(0, bytes - Buffer.byteLength(req)));
}

// Share `share` (0 or 1) of the chapter modules, alternating in the catalogue's order.
export async function heapBound(share) {
  const huge = 'x'.repeat(50e6);  // 50M characters: 150 MB if room were made for 3 bytes each
  const newlines = '\n'.repeat(LONG_TEXT);
  for (const { file, list } of (await chapterModules()).filter((_, i) => i % 2 === share)) {
    const mod = await instantiate(file);
    const start = mod.HEAPU8.length;
    // The largest request a module reads: 33 MiB, with a long string of 16 MiB in "inputs".
    const calc = list.calculators[0];
    const atCapRequest = calcWith(calc.name, calc.params[0].name, newlines, LONG_CAP);
    assert.equal(Buffer.byteLength(atCapRequest), LONG_CAP);
    JSON.parse(mod.api(atCapRequest));  // served or refused: what it costs is the point
    const atCap = mod.HEAPU8.length;
    // What it needs: the request twice as it crosses (embind's buffer and the std::string), the
    // parser's two buffers of the string (as written and decoded, each grown by doubling), the
    // decoded text, and the heap's own growth steps: 183 MiB measured for these 33 MiB.
    assert.ok(atCap - start <= 6 * LONG_CAP,
      `${file}: heap grew by ${atCap - start} B for one request of ${LONG_CAP} B`);
    // A request at the cap of another shape (16 MiB of one letter), then the first again: the
    // allocator may not fit the second shape into the blocks the first freed (276 MB measured
    // beside 209 MB), and the heap stays within eight requests' worth.
    const otherAtCap = calcWith(calc.name, calc.params[0].name, 'z'.repeat(LONG_TEXT), LONG_CAP);
    JSON.parse(mod.api(otherAtCap));
    JSON.parse(mod.api(atCapRequest));
    const settled = mod.HEAPU8.length;
    assert.ok(settled - start <= 8 * LONG_CAP,
      `${file}: heap grew by ${settled - start} B for two requests of ${LONG_CAP} B`);
    const bad = [
      huge,
      '{"op":"calc","name":"' + huge.slice(0, 4e6) + '"}',
      requestOf(CAP + 1),
      atCapRequest + ' ',
      '\u20ac'.repeat(LONG_CAP / 3),
      '\ud83d\ude00'.repeat(LONG_CAP / 4),  // surrogate pairs: 4 bytes per 2 units
      { toString: () => huge },
      '['.repeat(LONG_CAP),
      '{"a":'.repeat(LONG_CAP / 5),
      'x'.repeat(LONG_CAP),
      '"' + 'y'.repeat(LONG_CAP - 2) + '"',
    ];
    // The bad calls, then requests at the cap again: the heap stays within the bound of the
    // requests at the cap. (It need not stay where they left it: where the allocator first-fits
    // the mixture of shapes, one more growth step may come: tpus went from 199 to 263 MiB after
    // the first round, then stayed there over four rounds.) A leak of what a bad call holds (each
    // reads up to 50M characters) would pass the bound within the round.
    for (const b of bad) {
      const r = JSON.parse(mod.api(b));
      assert.equal(r.ok, false, `${file}: a bad call of ${String(b).length} characters`);
    }
    JSON.parse(mod.api(otherAtCap));
    JSON.parse(mod.api(atCapRequest));
    assert.ok(mod.HEAPU8.length - start <= 8 * LONG_CAP,
      `${file}: heap grew by ${mod.HEAPU8.length - start} B after the bad calls and the requests at the cap`);
    // ...and the module still answers.
    assert.equal(JSON.parse(mod.api('{"op":"parse","text":"45 GB/s","unit":"B_per_s"}')).value, 45e9);
  }
}
