// The one unit table: the site's data/units.json is the core's `units` answer, and web/lib/format.js
// writes every unit exactly as the core does (compared with the module's own text, through the
// `parse` op, at every decade). No unit table of its own in the site's JS.
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { root, startSite } from './harness.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

test('format.js writes every unit as the core does', async () => {
  const page = await site.page('index.html');
  const out = await page.evaluate(async () => {
    const core = await import('./lib/core.js');
    const fmt = await import('./lib/format.js');
    await fmt.loadUnits();
    const [first] = await core.chapters();
    const sb = await core.scaling(first.id);
    const table = (await core.unitTable()).units;
    const own = sb.request({ op: 'units' });
    const diffs = [];
    let compared = 0;
    for (const u of table) {
      const values = u.words ? ['yes', 'no'] : ['0', '1', '0.5', '3599', '86400', '1e-13'];
      if (!u.words) {
        for (let k = -14; k <= 20; k++) for (const m of ['1', '1.5', '9.99996', '-2.5']) values.push(`${m}e${k}`);
      }
      for (const text of values) {
        const r = sb.parse(text, u.id);
        if (!r.ok) { diffs.push(`${u.id} ${text}: ${r.error.message}`); continue; }
        compared += 1;
        const mine = fmt.fmtQuantity(r.value, u.id);
        if (mine !== r.text) diffs.push(`${u.id} ${text}: core "${r.text}", format.js "${mine}"`);
      }
    }
    return { diffs, compared, same: JSON.stringify(own.units) === JSON.stringify(table), units: table.map((u) => u.id) };
  });
  assert.deepEqual(out.diffs, []);
  assert.ok(out.compared > 500, `${out.compared} values compared`);
  assert.equal(out.same, true, 'data/units.json is the module\'s units answer');
  assert.ok(out.units.includes('B_per_s') && out.units.includes('s'));
  await page.close();
});

// A unit table would key something by unit id ("B_per_s: {...}") or list the prefixes ("µ").
test('the site\'s JS has no unit table of its own', () => {
  const units = JSON.parse(fs.readFileSync(path.join(site.dir, 'data', 'units.json'), 'utf8')).units.map((u) => u.id);
  const files = [
    ...fs.readdirSync(path.join(root, 'web', 'lib')).map((f) => path.join(root, 'web', 'lib', f)),
    ...fs.readdirSync(path.join(root, 'chapters')).map((d) => path.join(root, 'chapters', d, 'widgets.js')),
  ].filter((f) => f.endsWith('.js') && fs.existsSync(f));
  assert.ok(files.length > 5);
  for (const f of files) {
    const src = fs.readFileSync(f, 'utf8');
    for (const id of units) {
      assert.doesNotMatch(src, new RegExp(`(^|[{,])\\s*['"]?${id}['"]?\\s*:\\s*[{'"]`, 'm'), `${path.relative(root, f)} keys something by the unit id ${id}`);
    }
    assert.ok(!src.includes('µ') && !src.includes('\\u00b5'), `${path.relative(root, f)} lists prefixes`);
  }
});
