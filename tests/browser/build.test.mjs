// The site build's pages follow the chapter records: a chapter that exists only as a record (no
// page.html, no widgets.js, as a new folder starts) gets its page, its place in every page's nav and
// its live Part on the home page, with no other edit. Pure node: no wasm, no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from './harness.mjs';
import { bookParts, chapters, folderRecords, writePages } from '../../web/build.mjs';

// The twelve Parts: the chapter folders' records and web/parts.json for the rest.
const { book, parts } = bookParts(folderRecords());

test('a new chapter record appears in the nav, on the home page and as a page of its own', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-pages-'));
  try {
    // An existing chapter (the first folder, from its chapter.json) and the last Part as a throwaway
    // chapter whose id and prefix differ, as applied_training's do.
    const id = chapters()[0];
    const real = { id, ...JSON.parse(fs.readFileSync(path.join(root, 'chapters', id, 'chapter.json'), 'utf8')) };
    const p6 = parts[parts.length - 1];
    assert.ok(p6.part > real.part);
    const fresh = { id: 'zz_throwaway', prefix: 'zz-throwaway', part: p6.part, title: p6.title, slug: p6.slug, bases: [], short: p6.short, group: p6.group };
    // The list of Parts without a chapter, as web/parts.json would be for these two records.
    const others = { book, parts: parts.filter((p) => p.part !== real.part && p.part !== p6.part) };
    writePages(out, { chapters: [real, fresh] }, others);
    const files = fs.readdirSync(out).filter((f) => f.endsWith('.html')).sort();
    assert.deepEqual(files, ['hardware.html', 'index.html', `${p6.slug}.html`, `${real.slug}.html`].sort());
    // Only the existing chapter has widgets (chapters/<id>/widgets.js) to copy.
    const widgets = fs.existsSync(path.join(root, 'chapters', id, 'widgets.js')) ? [`${id}.js`] : [];
    assert.deepEqual(fs.existsSync(path.join(out, 'widgets')) ? fs.readdirSync(path.join(out, 'widgets')) : [], widgets);
    const page = fs.readFileSync(path.join(out, `${p6.slug}.html`), 'utf8');
    // Its frame: the one script (no widgets.js: the library's page.js), the nav, its heading.
    assert.deepEqual([...page.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]), ['lib/page.js']);
    assert.ok(page.includes(`<h1>${p6.title}</h1>`));
    assert.match(page, new RegExp(`<a href="${p6.slug}.html"[^>]*aria-current="page">${p6.short}</a>`));
    // The standard sections, filled by lib/page.js with its calculators and problems.
    assert.match(page, /data-calculators="zz_throwaway"/);
    assert.match(page, /data-exercises="zz_throwaway"/);
    // Every page's nav has it, in Part order after the other chapter and before Hardware.
    for (const f of files) {
      const html = fs.readFileSync(path.join(out, f), 'utf8');
      const nav = [...html.matchAll(/<nav[\s\S]*?<\/nav>/g)][0][0];
      assert.deepEqual([...nav.matchAll(/href="([^"]+)"/g)].map((m) => m[1]),
        ['index.html', `${real.slug}.html`, `${p6.slug}.html`, 'hardware.html'], f);
    }
    // The home page: those two Parts live, the others coming.
    const home = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
    assert.equal([...home.matchAll(/class="sb-chapter sb-live"/g)].length, 2);
    assert.equal([...home.matchAll(/class="sb-chapter sb-coming"/g)].length, parts.length - 2);
    assert.ok(home.includes(`<li class="sb-chapter sb-live" data-part="${p6.part}" data-chapter="zz_throwaway">`));
    assert.match(home, /data-progress="zz_throwaway"/);
    // No placeholder of the frame is left anywhere.
    for (const f of files) assert.doesNotMatch(fs.readFileSync(path.join(out, f), 'utf8'), /\{\{|sb:parts/, f);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});

test('web/parts.json and the chapter records: one place for each Part; the build fails where they disagree', () => {
  const records = folderRecords();
  // web/parts.json keeps only the Parts with no chapter folder yet.
  const listed = JSON.parse(fs.readFileSync(path.join(root, 'web', 'parts.json'), 'utf8')).parts;
  for (const r of records) {
    assert.ok(!listed.some((p) => p.part === r.part),
      `web/parts.json still lists Part ${r.part}, which chapters/${r.id}/ holds: move its short and group to its chapter.json and remove the entry`);
  }
  const rest = bookParts(records).parts.filter((p) => !records.some((r) => r.part === p.part));
  const real = records[0];
  const other = { book, parts: [...rest, { part: real.part, title: 'Another Title', slug: real.slug, short: 'x', group: 'y' }] };
  assert.throws(() => bookParts(records, other), new RegExp(`disagree on Part ${real.part}`));
  const missing = { book, parts: rest.slice(1) };
  assert.throws(() => bookParts(records, missing), new RegExp(`Part ${rest[0].part} is in neither`));
  const noShort = records.map((r, i) => (i === 0 ? { ...r, short: undefined } : r));
  assert.throws(() => bookParts(noShort), /give "short"/);
});
