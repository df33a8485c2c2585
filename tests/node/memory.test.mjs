// The JS side refuses a request over the core's cap (33 MiB of UTF-8: 1 MiB, or 1 MiB and one
// long-text input of up to 16 MiB with its JSON escapes) before copying it into the module, so that
// no request, however large, grows a module's heap past what one request at the cap needs (wasm
// memory never shrinks). Measured on a fresh instance of every chapter module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chapterModules, fileFor, instantiate } from './modules.mjs';

const CAP = 1 << 20;  // bytes of UTF-8 of a request without a long text (core/json.hpp)
const LONG_TEXT = 16 << 20;  // a long-text input, decoded
const LONG_CAP = 33 << 20;  // a request carrying one: core/json.hpp and wasm/api.post.js

// A valid request whose UTF-8 is exactly `bytes` long: the parse op of `text`, then spaces.
function requestOf(bytes, text = '1 s') {
  const req = JSON.stringify({ op: 'parse', text, unit: 's' });
  return req + ' '.repeat(bytes - Buffer.byteLength(req));
}

// A calc request with `text` as input `name`, padded with spaces to `bytes` if given.
function calcWith(calc, name, text, bytes = 0) {
  const req = JSON.stringify({ op: 'calc', name: calc, inputs: { [name]: text } });
  return req + ' '.repeat(Math.max(0, bytes - Buffer.byteLength(req)));
}

const error = (text) => {
  const r = JSON.parse(text);
  return r.ok ? { code: 'ok', field: '' } : r.error;
};
const code = (text) => error(text).code;

test('the cap counts bytes of UTF-8, the same in JS and in the core', async () => {
  const mod = await instantiate((await chapterModules())[0].file);
  assert.equal(Buffer.byteLength(requestOf(CAP)), CAP);
  assert.equal(JSON.parse(mod.api(requestOf(CAP))).value, 1, 'a request of exactly 1 MiB is served');
  assert.equal(code(mod.api(requestOf(CAP + 1))), 'too_large', '1 MiB + 1 byte is refused');
  // U+20AC EURO SIGN is 3 bytes of UTF-8 and one UTF-16 unit: a text of LONG_CAP/3 + 1 of them has
  // fewer units than the cap but more bytes, and only the byte count refuses it before the core.
  const euros = '"' + '\u20ac'.repeat(Math.floor(LONG_CAP / 3) + 1) + '"';
  assert.ok(euros.length < LONG_CAP && Buffer.byteLength(euros) > LONG_CAP);
  assert.deepEqual(error(mod.api(euros)), error(mod.api('x'.repeat(LONG_CAP + 1))));
  assert.equal(error(mod.api(euros)).message, 'the request is over 33 MiB');
  // Past 1 MiB, text that is not JSON, or holds no long text, is refused for its size.
  assert.equal(code(mod.api('\u00b5'.repeat(CAP))), 'too_large');
  assert.equal(code(mod.api('"' + '\u20ac'.repeat(CAP / 3 + 1) + '"')), 'too_large');
  // A lone low surrogate becomes U+FFFD, 3 bytes: CAP/4 pairs of it and a euro sign are 1.5 MiB,
  // though a count that took each surrogate for the start of a 4-byte pair would read 1 MiB.
  assert.equal(code(mod.api('\udc00\u20ac'.repeat(CAP / 4))), 'too_large');
  // ...and crosses as that U+FFFD: the core reads the text and names what it cannot parse.
  const lone = JSON.parse(mod.api('{"op":"parse","text":"1 \udc00s","unit":"s"}'));
  assert.equal(lone.ok, false);
  assert.match(lone.error.message, /\ufffds/);
  // 1 MiB of bytes in fewer units (U+00B5 MICRO SIGN is 2 bytes) is counted, and served: 1 us.
  const micro = requestOf(CAP, '1 \u00b5s');
  assert.ok(micro.length < CAP && micro.length * 3 > CAP && Buffer.byteLength(micro) === CAP);
  assert.equal(JSON.parse(mod.api(micro)).value, 1e-6);
});

// Lines as nccl-tests prints them, cut to exactly `bytes` bytes.
function logOf(bytes) {
  const line = '     1048576        262144     float     sum      -1    55.84   18.78   32.86      0\n';
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

test('a long text is read up to 16 MiB, in an input that takes one; other inputs keep 16 KiB', async () => {
  const modules = await chapterModules();
  // Where a calculator takes a long text: 16 MiB is read (whatever the calculator makes of it),
  // one byte more is refused naming the input.
  for (const m of modules) {
    for (const c of m.list.calculators) {
      const p = c.params.find((q) => q.long_text);
      if (!p) continue;
      assert.equal(p.max_bytes, LONG_TEXT, `${c.name}.${p.name}`);
      const mod = await instantiate(fileFor(m, c));
      const at = error(mod.api(calcWith(c.name, p.name, logOf(LONG_TEXT))));
      assert.ok(at.code !== 'too_large' && at.field !== 'request', `${c.name}: ${JSON.stringify(at)}`);
      assert.deepEqual([error(mod.api(calcWith(c.name, p.name, logOf(LONG_TEXT + 1)))).code,
        error(mod.api(calcWith(c.name, p.name, logOf(LONG_TEXT + 1)))).field], ['too_large', p.name]);
    }
  }
  // Every module reads a request of up to 33 MiB whose one long string is in "inputs", and its
  // calculator refuses it where the input is not a long text (the chip: 16 KiB), naming the input.
  const { file, list } = modules[0];
  const mod = await instantiate(file);
  const calc = list.calculators.find((c) => c.params.some((q) => q.name === 'chip'));
  const newlines = '\n'.repeat(LONG_TEXT);  // 32 MiB as JSON: "\n" is two bytes
  assert.deepEqual(error(mod.api(calcWith(calc.name, 'chip', newlines, LONG_CAP))),
    { code: 'too_large', field: 'chip', message: 'the text of chip is over 16384 bytes long' });
  assert.equal(error(mod.api(calcWith(calc.name, 'chip', newlines, LONG_CAP + 1))).field, 'request');
  assert.equal(error(mod.api(calcWith(calc.name, 'chip', 'x'.repeat(LONG_TEXT + 1)))).field, 'chip');
  assert.equal(error(mod.api(calcWith(calc.name, 'chip', 'v5e'))).code, 'ok');
});

test('bad calls of any size leave every module\'s heap within its size after the requests at the cap', async () => {
  const huge = 'x'.repeat(50e6);  // 50M characters: 150 MB if room were made for 3 bytes each
  const newlines = '\n'.repeat(LONG_TEXT);
  for (const { file, list } of await chapterModules()) {
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
});
