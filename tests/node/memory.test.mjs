// The JS side refuses a request over the core's cap (33 MiB of UTF-8: 1 MiB, or 1 MiB and one
// long-text input of up to 16 MiB with its JSON escapes) before copying it into the module, so that
// no request, however large, grows a module's heap past what one request at the cap needs (wasm
// memory never shrinks; heap.first.test.mjs and heap.second.test.mjs measure that on a fresh
// instance of every chapter module). Here: the caps themselves, in bytes of UTF-8.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chapterModules, fileFor, instantiate } from './modules.mjs';
import { CAP, LONG_CAP, LONG_TEXT, calcWith, requestOf } from './heap.mjs';

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
