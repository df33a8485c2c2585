// Writes the committed seed corpora of the text fuzzers (fuzz/seeds/<fuzzer>/) from what the
// registry and the tests hold: every computed answer and given as text, the formulas, units and
// shardings the tests and problems use. Run after a native build: node scripts/fuzz-seeds.mjs
// [path of the scaling CLI]; scripts/fuzz.sh reads them beside each run's corpus. The fuzzers that
// pick calculators and problems (fuzz_calc, fuzz_api, fuzz_answer) write their own seeds from the
// registry at each run instead (fuzz/seeds.hpp), so that a new chapter is reached at once.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';

const root = new URL('../', import.meta.url).pathname;
const cli = process.argv[2] ?? `${root}build/native/bin/scaling`;
const run = (...args) => JSON.parse(execFileSync(cli, [...args, '--json'], { maxBuffer: 1 << 26 }));

const list = run('list');
const problems = list.problems.map((p) => run('problem', p.id));

// One file per seed, named by its hash (as libFuzzer names corpus files); a fuzzer's generated
// seeds replace its previous generated ones, hand-written seeds (other names) stay.
function write(fuzzer, seeds) {
  const dir = `${root}fuzz/seeds/${fuzzer}`;
  mkdirSync(dir, { recursive: true });
  for (const f of readdirSync(dir)) if (f.startsWith('gen-')) rmSync(`${dir}/${f}`);
  const unique = new Map();
  for (const s of seeds) {
    const bytes = Buffer.isBuffer(s) ? s : Buffer.from(s);
    unique.set(createHash('sha1').update(bytes).digest('hex').slice(0, 16), bytes);
  }
  for (const [h, bytes] of unique) writeFileSync(`${dir}/gen-${h}`, bytes);
  console.log(`${fuzzer}: ${unique.size} seeds`);
}

// The bytes of a C++ string literal's body: \\, \", \n, \t and \xHH escapes.
function unescape(body) {
  const bytes = [];
  for (let i = 0; i < body.length; ++i) {
    if (body[i] !== '\\') {
      bytes.push(...Buffer.from(body[i]));
      continue;
    }
    const c = body[++i];
    if (c === 'x') {
      bytes.push(parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(({ n: 10, t: 9 })[c] ?? c.charCodeAt(0));
    }
  }
  return Buffer.from(bytes).toString('latin1') === '' ? '' : Buffer.from(bytes).toString();
}

// String literals of a test file that satisfy `keep`.
function literals(file, keep) {
  const text = readFileSync(`${root}${file}`, 'utf8');
  return [...text.matchAll(/"((?:[^"\\\n]|\\.)*)"/g)].map((m) => unescape(m[1])).filter(keep);
}

const answerTexts = problems.flatMap((p) =>
  Object.values(p.answers).map((a) => a.text).filter((t) => typeof t === 'string'));
const givenTexts = problems.flatMap((p) => p.given.map((g) => g.text));
const unitTexts = literals('tests/core/units_test.cpp', (s) => /\d/.test(s) && s.length < 40)
  .concat(literals('tests/core/units_parse_test.cpp', (s) => /\d/.test(s) && s.length < 40));

// fuzz_units: quantities as a reader types them.
write('fuzz_units', [...answerTexts, ...givenTexts, ...unitTexts]);

// fuzz_expr: formulas a reader types.
const formulas = literals('tests/core/expr_test.cpp', (s) => /[A-Za-z0-9]/.test(s) && /[-+*/^()]/.test(s))
  .concat(['2*B*D*F', '2BDF/(2BD+2DF+2BF)', 'B*D*F/(B*D+D*F+B*F)', '2*N*(N-1)', 'max(B, D)/F',
           'sqrt(B*D)', 'log2(N)', 'B*D/W_ici', 'h*h*h', '1/z']);
write('fuzz_expr', formulas);

// fuzz_sharding: the shardings and meshes the problems and calculators use.
const shardingLike = (t) => typeof t === 'string' && /[[{(]|\dx\d/.test(t);
write('fuzz_sharding', [
  ...givenTexts.filter(shardingLike),
  ...list.calculators.flatMap((c) => c.params.map((p) => p.default)).filter(shardingLike),
]);
