// The JS side refuses a request over the core's cap (1 MiB of UTF-8) before copying it into the
// module, so that no request, however large, grows a module's heap past what one request at the cap
// needs (wasm memory never shrinks). Measured on a fresh instance of every chapter module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chapterModules, instantiate } from './modules.mjs';

const CAP = 1 << 20;  // bytes of UTF-8: core/api.cpp and wasm/api.post.js

// A valid request whose UTF-8 is exactly `bytes` long: the parse op of `text`, then spaces.
function requestOf(bytes, text = '1 s') {
  const req = JSON.stringify({ op: 'parse', text, unit: 's' });
  return req + ' '.repeat(bytes - Buffer.byteLength(req));
}

const code = (text) => {
  const r = JSON.parse(text);
  return r.ok ? 'ok' : r.error.code;
};

test('the cap counts bytes of UTF-8, the same in JS and in the core', async () => {
  const mod = await instantiate((await chapterModules())[0].file);
  assert.equal(Buffer.byteLength(requestOf(CAP)), CAP);
  assert.equal(JSON.parse(mod.api(requestOf(CAP))).value, 1, 'a request of exactly 1 MiB is served');
  assert.equal(code(mod.api(requestOf(CAP + 1))), 'too_large', '1 MiB + 1 byte is refused');
  // U+20AC EURO SIGN is 3 bytes of UTF-8 and one UTF-16 unit: a text of CAP/3 + 1 of them has fewer
  // units than the cap but more bytes, and only the byte count refuses it.
  const euros = '"' + '\u20ac'.repeat(Math.floor(CAP / 3) + 1) + '"';
  assert.ok(euros.length < CAP && Buffer.byteLength(euros) > CAP);
  assert.equal(code(mod.api(euros)), 'too_large');
  // 2 MiB of a character of 2 bytes: 1 MiB units, 2 MiB bytes.
  assert.equal(code(mod.api('\u00b5'.repeat(CAP))), 'too_large');
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

test('bad calls of any size leave every module\'s heap within its size after one request at the cap', async () => {
  const huge = 'x'.repeat(50e6);  // 50M characters: 150 MB if room were made for 3 bytes each
  for (const { file } of await chapterModules()) {
    const mod = await instantiate(file);
    assert.equal(JSON.parse(mod.api(requestOf(CAP))).ok, true, `${file}: a request at the cap`);
    const atCap = mod.HEAPU8.length;
    const bad = [
      huge,
      '{"op":"calc","name":"' + huge.slice(0, 4e6) + '"}',
      requestOf(CAP + 1),
      '\u20ac'.repeat(CAP),
      '\ud83d\ude00'.repeat(CAP / 2),  // surrogate pairs: 4 bytes per 2 units
      { toString: () => huge },
      '['.repeat(CAP),
      '{"a":'.repeat(CAP / 5),
      'x'.repeat(CAP),
      '"' + 'y'.repeat(CAP - 2) + '"',
    ];
    for (const b of bad) {
      const r = JSON.parse(mod.api(b));
      assert.equal(r.ok, false, `${file}: a bad call of ${String(b).length} characters`);
    }
    assert.ok(mod.HEAPU8.length <= atCap,
      `${file}: heap ${mod.HEAPU8.length} B after the bad calls, ${atCap} B after one request at the cap`);
    // ...and the module still answers.
    assert.equal(JSON.parse(mod.api('{"op":"parse","text":"45 GB/s","unit":"B_per_s"}')).value, 45e9);
  }
});
