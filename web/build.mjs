// Assembles the static site into build/site/: the pages, css, widget library, chapter widgets, the
// JS wrapper and one wasm module per chapter, the catalogue and chip tables as JSON, and vendored
// KaTeX and uPlot (no CDN: the site serves everything).
//   node web/build.mjs            SB_WASM_DIR overrides where scaling-<chapter>.{mjs,wasm} are taken from
//
// Every page's frame (head, nav, chip picker, footer: web/frame.html) is generated here from the
// chapter records, so a page file holds only its content:
//   chapters/<id>/page.html    the chapter page's content  -> <slug>.html
//   chapters/<id>/widgets.js   its widgets (optional)       -> widgets/<id>.js, the page's one script
//   web/pages/<name>.html      the home and hardware pages  -> <name>.html
// The home page lists the twelve Parts of the book (web/parts.json); a Part with a chapter record is
// live, the others say "coming".
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CSP_META } from './csp.mjs';
import { minifyJs } from '../wasm/minify.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const web = path.join(root, 'web');
const defaultOut = path.join(root, 'build', 'site');
const wasmDir = process.env.SB_WASM_DIR ? path.resolve(process.env.SB_WASM_DIR) : path.join(root, 'build', 'wasm', 'bin');

// The site's own pages besides the chapters, in nav order around them: Home first, Hardware last.
const SITE_PAGES = [
  { name: 'index', nav: 'Home', title: 'Scaling companion', script: 'lib/page.js' },
  { name: 'hardware', nav: 'Hardware', title: 'Hardware tables', script: 'lib/page.js' },
];

function copy(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true });
}

const readJson = (file) => JSON.parse(fs.readFileSync(file, 'utf8'));

// The chapters that have a module: the folders chapters/<id>/ with a register.cpp and a
// chapter.json, as CMake finds them (CMakeLists.txt makes scaling-<id>.{mjs,wasm} of each).
export function chapters() {
  const dir = path.join(root, 'chapters');
  return fs.readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && /^[a-z_][a-z0-9_]*$/.test(d.name) && fs.existsSync(path.join(dir, d.name, 'register.cpp')) && fs.existsSync(path.join(dir, d.name, 'chapter.json')))
    .map((d) => d.name)
    .sort();
}

// The records as the chapter folders hold them (chapters/<id>/chapter.json), with their ids: what
// the modules will answer once built, and the Parts' titles, slugs and nav names (bookParts).
export function folderRecords() {
  return chapters().map((id) => ({ id, ...readJson(path.join(root, 'chapters', id, 'chapter.json')) }));
}

// A chapter record as the module's `list` answers it: {id, prefix, part, title, slug, bases}.
function checkRecord(r, where) {
  const bad = (what) => { throw new Error(`${where}: ${what}`); };
  if (!r || typeof r !== 'object') bad('not an object');
  if (typeof r.id !== 'string' || !/^[a-z_][a-z0-9_]*$/.test(r.id)) bad(`bad id ${JSON.stringify(r.id)}`);
  if (typeof r.prefix !== 'string' || !/^[a-z][a-z0-9-]*$/.test(r.prefix)) bad(`bad prefix ${JSON.stringify(r.prefix)}`);
  // 13: a page that is not a Part of the book (its chapter.json says "page": true), after the Parts.
  if (!Number.isInteger(r.part) || r.part < 1 || r.part > 13) bad(`part must be a whole number 1-12 (13 for a page), got ${JSON.stringify(r.part)}`);
  if (typeof r.title !== 'string' || !r.title) bad('no title');
  if (typeof r.slug !== 'string' || !/^[a-z0-9][a-z0-9-]*$/.test(r.slug)) bad(`bad slug ${JSON.stringify(r.slug)}`);
  if (!Array.isArray(r.bases) || r.bases.some((b) => typeof b !== 'string')) bad('bases must be a list of chapter ids');
  return { id: r.id, prefix: r.prefix, part: r.part, title: r.title, slug: r.slug, bases: r.bases };
}

// Asks a built module (under node; `name` is scaling-<chapter> or scaling-<chapter>-problems) for
// one response per op; the module must answer ok.
async function ask(name, ops) {
  const mjs = path.join(wasmDir, `${name}.mjs`);
  const { default: factory } = await import(pathToFileURL(mjs).href);
  const mod = await factory({ wasmBinary: fs.readFileSync(path.join(wasmDir, `${name}.wasm`)) });
  const out = {};
  for (const op of ops) {
    const r = JSON.parse(mod.api(JSON.stringify({ op })));
    if (!r.ok) throw new Error(`${name}: ${op} failed: ${r.error?.message}`);
    out[op] = r;
  }
  return out;
}

// Every name in the catalogue maps to its module through the records: the text before the first
// '.' is a record's prefix, and that record's id is the chapter that lists it.
function checkCatalog(catalog) {
  const byPrefix = new Map();
  for (const r of catalog.chapters) {
    if (byPrefix.has(r.prefix)) throw new Error(`chapters ${byPrefix.get(r.prefix).id} and ${r.id} share the prefix ${r.prefix}`);
    byPrefix.set(r.prefix, r);
  }
  const parts = new Map();
  for (const r of catalog.chapters) {
    if (parts.has(r.part)) throw new Error(`chapters ${parts.get(r.part)} and ${r.id} are both Part ${r.part}`);
    parts.set(r.part, r.id);
  }
  for (const [what, key, list] of [['calculator', 'name', catalog.calculators], ['problem', 'id', catalog.problems]]) {
    for (const e of list) {
      const prefix = e[key].split('.')[0];
      const rec = byPrefix.get(prefix);
      if (!rec || rec.id !== e.chapter) {
        throw new Error(`${what} ${e[key]} of chapter ${e.chapter}: its prefix ${prefix} is ${rec ? `chapter ${rec.id}'s` : 'no chapter record\'s'}`);
      }
    }
  }
}

// data/catalog.json: the chapter records and every module's `list` merged, where every page looks
// up names (and the module that computes them) without loading a module; data/chips.json and
// data/units.json: the `chips` and `units` responses, the same in every module since the chip and
// unit tables belong to the core.
async function writeData(out, chs) {
  const catalog = { ok: true, chapters: [], calculators: [], problems: [] };
  const shared = { chips: null, units: null };
  for (const ch of chs) {
    // The calculators module lists the calculators, the exercises module the problems, and the
    // calculators too where some are heavy: it computes those, in the page's worker.
    const r = await ask(`scaling-${ch}`, ['list', 'chips', 'units']);
    const ex = await ask(`scaling-${ch}-problems`, ['list']);
    const heavy = r.list.calculators.some((c) => c.heavy);
    for (const [name, list, other] of [[`scaling-${ch}`, r.list, 'problems'], [`scaling-${ch}-problems`, ex.list, heavy ? null : 'calculators']]) {
      // A module holds its own chapter only (the link leaves the others out).
      const stray = [...list.calculators.map((c) => c.chapter), ...list.problems.map((p) => p.chapter)].find((c) => c !== ch);
      if (stray) throw new Error(`${name} lists entries of chapter ${stray}: rebuild the wasm modules`);
      if (other && list[other].length) throw new Error(`${name} lists ${other}: rebuild the wasm modules`);
    }
    // The record: the module's own (`list` answers `chapters`: its chapter only).
    const mine = (r.list.chapters || []).filter((c) => c.id === ch);
    if (mine.length !== 1) throw new Error(`scaling-${ch} lists the chapters ${(r.list.chapters || []).map((c) => c.id)}, not its own once: rebuild the wasm modules`);
    if (heavy && JSON.stringify(ex.list.calculators) !== JSON.stringify(r.list.calculators)) {
      throw new Error(`scaling-${ch}-problems lists other calculators than scaling-${ch}: rebuild the wasm modules`);
    }
    catalog.chapters.push(withPage(checkRecord(mine[0], `scaling-${ch} list`)));
    catalog.calculators.push(...r.list.calculators);
    catalog.problems.push(...ex.list.problems);
    for (const op of Object.keys(shared)) {
      const text = JSON.stringify(r[op]);
      if (shared[op] !== null && text !== shared[op]) throw new Error(`scaling-${ch} answers ${op} otherwise than scaling-${chs[0]}: rebuild the wasm modules`);
      shared[op] = text;
    }
  }
  catalog.chapters.sort((a, b) => a.part - b.part);
  checkCatalog(catalog);
  fs.mkdirSync(path.join(out, 'data'), { recursive: true });
  fs.writeFileSync(path.join(out, 'data', 'catalog.json'), JSON.stringify(catalog));
  for (const op of Object.keys(shared)) fs.writeFileSync(path.join(out, 'data', `${op}.json`), shared[op]);
  return catalog;
}

// ---------------------------------------------------------------- pages
// Text for HTML content or a double-quoted attribute.
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// The twelve Parts of the book, {book, parts: [{part, title, slug, short, group}]} in order: a Part
// with a chapter takes them from its chapter.json (the record, with `short` and `group`); web/parts.json
// lists the Parts with no chapter folder yet. The build fails where the two disagree (a Part in
// both with another title or slug), and for a Part in neither. A new chapter whose Part is still
// listed there agrees with it and borrows its short name and group until its chapter.json has
// them (tests/browser/build.test.mjs asks for the entry to go then).
export function bookParts(records, data = readJson(path.join(web, 'parts.json'))) {
  const listed = new Map((data.parts || []).map((p) => [p.part, p]));
  const parts = [];
  for (let n = 1; n <= 12; n++) {
    const rec = records.find((r) => r.part === n);
    const p = listed.get(n);
    if (rec && p && (p.title !== rec.title || p.slug !== rec.slug)) {
      throw new Error(`chapters/${rec.id}/chapter.json (${JSON.stringify(rec.title)}, slug ${rec.slug}) and web/parts.json ` +
        `(${JSON.stringify(p.title)}, slug ${p.slug}) disagree on Part ${n}: the chapter's record is the one; remove Part ${n} from web/parts.json`);
    }
    if (rec) {
      const short = rec.short || p?.short, group = rec.group || p?.group;
      if (!short || !group) throw new Error(`chapters/${rec.id}/chapter.json: give "short" (its name in the nav) and "group" (its group on the home page)`);
      parts.push({ part: n, title: rec.title, slug: rec.slug, short, group });
    } else if (p && p.title && p.slug && p.short) {
      parts.push(p);
    } else {
      throw new Error(`Part ${n} is in neither a chapters/<id>/chapter.json nor web/parts.json (with title, slug and short)`);
    }
  }
  return { book: data.book, parts };
}

// A chapter's own chapter.json, for the fields the module's record leaves out (short, group); its
// title and slug must be the module's (a stale module fails the build).
function withPage(rec) {
  const file = path.join(root, 'chapters', rec.id, 'chapter.json');
  const own = readJson(file);
  for (const k of ['title', 'slug', 'part']) {
    if (own[k] !== rec[k]) throw new Error(`chapters/${rec.id}/chapter.json says ${k} ${JSON.stringify(own[k])}, its module ${JSON.stringify(rec[k])}: rebuild the wasm modules`);
  }
  if ((rec.part === 13) !== (own.page === true)) throw new Error(`chapters/${rec.id}/chapter.json: part 13 is for a page that is not a Part ("page": true), and only for one`);
  return { ...rec, short: own.short, group: own.group, ...(own.page ? { page: true } : {}) };
}

// Fills {{name}} in a template; every placeholder must have a value.
function fill(template, vars, where) {
  return template.replace(/\{\{(\w+)\}\}/g, (m, k) => {
    if (!(k in vars)) throw new Error(`${where}: no value for ${m}`);
    return vars[k];
  });
}

const indent = (text, n) => text.trimEnd().split('\n').map((l) => (l ? ' '.repeat(n) + l : l)).join('\n');

// The home page's list of Parts: live ones link to their page and show the reader's progress
// (lib/page.js fills [data-progress]); the others say "coming". Each links to the book's chapter.
function partsList({ book, parts }, byPart, pages = []) {
  const items = parts.map((p) => {
    const rec = byPart.get(p.part);
    const bookLink = `<a class="sb-book-link" href="${esc(new URL(`${p.slug}/`, book).href)}" title="Part ${p.part} in the book">book</a>`;
    const lines = rec
      ? [`<li class="sb-chapter sb-live" data-part="${p.part}" data-chapter="${esc(rec.id)}">`,
        `  <span class="sb-chapter-num">${p.part}</span>`,
        `  <a class="sb-chapter-title" href="${esc(rec.slug)}.html">${esc(rec.title)}</a>`,
        `  <span class="sb-chapter-part">${esc(p.group || '')}</span>`,
        `  <span class="sb-progress" data-progress="${esc(rec.id)}"></span>`,
        `  ${bookLink}`,
        '</li>']
      : [`<li class="sb-chapter sb-coming" data-part="${p.part}">`,
        `  <span class="sb-chapter-num">${p.part}</span>`,
        `  <span class="sb-chapter-title">${esc(p.title)}</span>`,
        `  <span class="sb-chapter-part">${esc(p.group || '')}</span>`,
        '  <span class="sb-badge">coming</span>',
        `  ${bookLink}`,
        '</li>'];
    return lines.map((l) => `  ${l}`).join('\n');
  });
  // The pages that are not Parts (validation), after them.
  for (const r of pages) {
    items.push([`<li class="sb-chapter sb-live sb-page" data-chapter="${esc(r.id)}">`,
      '  <span class="sb-chapter-num"></span>',
      `  <a class="sb-chapter-title" href="${esc(r.slug)}.html">${esc(r.title)}</a>`,
      `  <span class="sb-chapter-part">${esc(r.group || '')}</span>`,
      '</li>'].map((l) => `  ${l}`).join('\n'));
  }
  return `<ol class="sb-chapters">\n${items.join('\n')}\n</ol>`;
}

// The sections every chapter page has unless its page.html places them itself: one calculator per
// calculator of the chapter, one exercise per problem (lib/page.js fills them from the catalogue).
function standardSections(rec, content) {
  const out = [];
  if (rec.page) return '';  // a page that is not a Part places its own widgets and has no exercises
  if (!/data-calculators=/.test(content)) {
    out.push(`<section class="sb-section" id="calculators" data-calculators="${esc(rec.id)}">
  <h2>Calculators</h2>
  <div class="sb-calc-list"></div>
</section>`);
  }
  if (!/data-exercises=/.test(content)) {
    out.push(`<section class="sb-section" id="exercises" data-exercises="${esc(rec.id)}">
  <h2>Exercises <span class="sb-muted sb-small" data-exercise-count></span></h2>
  <p class="sb-muted">Type an answer with its unit (“1.2 ms”, “820 GB/s”) or as a plain number in base units.
    “New variant” draws fresh inputs; the answers are recomputed by the chapter’s model.</p>
  <div class="sb-exercise-list"></div>
</section>`);
  }
  return out.join('\n');
}

// The site files a page's script imports statically, itself included, in the order a browser meets
// them (dynamic imports, such as KaTeX's, are left out: they load when first needed).
function staticImports(out, script) {
  const seen = new Set();
  const visit = (rel) => {
    if (seen.has(rel) || !fs.existsSync(path.join(out, rel))) return;
    seen.add(rel);
    const text = fs.readFileSync(path.join(out, rel), 'utf8');
    const re = /^[ \t]*(?:import\s+(?:[\w$*{}\s,]+?\s+from\s*)?|export\s+[\w$*{}\s,]+?\s+from\s*)['"](\.{1,2}\/[^'"]+\.m?js)['"]/gm;
    for (const m of text.matchAll(re)) {
      visit(path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[1])));
    }
  };
  visit(script);
  return [...seen];
}

// Hints that let the browser fetch a page's whole module graph and its chapter's wasm at once,
// instead of discovering them one import (and one catalogue fetch) after another. `chapter` is the
// chapter whose first module the page instantiates: none where every calculator is heavy (its
// worker loads the second module) and there are no exercises (the validation page).
function preloads(out, script, chapter) {
  const links = staticImports(out, script).slice(1).map((f) => `<link rel="modulepreload" href="${esc(f)}">`);
  // Every page reads the catalogue and the unit table (lib/core.js fetches them in cors mode).
  for (const f of ['catalog', 'units']) links.push(`<link rel="preload" href="data/${f}.json" as="fetch" crossorigin>`);
  if (chapter) {
    links.push(`<link rel="modulepreload" href="wasm/scaling-${esc(chapter)}.mjs">`);
    // crossorigin: the loader fetches the wasm in cors mode, and a preload must match it to be used.
    links.push(`<link rel="preload" href="wasm/scaling-${esc(chapter)}.wasm" as="fetch" type="application/wasm" crossorigin>`);
  }
  return links.join('\n');
}

// Whether a chapter's page instantiates its first module: for a calculator computed on the main
// thread, or for its exercises (lib/core.js loads the exercises module after the first). A catalogue
// without calculators or problems (a test's records alone) counts as using it.
function firstModuleUsed(catalog, id) {
  if (!catalog.calculators && !catalog.problems) return true;
  return (catalog.calculators || []).some((c) => c.chapter === id && !c.heavy) ||
    (catalog.problems || []).some((p) => p.chapter === id);
}

// Writes every page: the frame around each page's content. `catalog` needs only `chapters` (with
// `short` and `group`); `partsData` stands for web/parts.json (a test's).
export function writePages(out, catalog, partsData) {
  const frame = fs.readFileSync(path.join(web, 'frame.html'), 'utf8');
  const parts = bookParts(catalog.chapters, partsData);
  const byPart = new Map(catalog.chapters.map((r) => [r.part, r]));
  const partOf = new Map(parts.parts.map((p) => [p.part, p]));
  const [home, hardware] = SITE_PAGES;
  const navItems = [
    { file: `${home.name}.html`, label: home.nav, title: home.title },
    ...catalog.chapters.map((r) => (r.page ? { file: `${r.slug}.html`, label: r.short, title: r.title }
      : { file: `${r.slug}.html`, label: partOf.get(r.part).short, title: `Part ${r.part}: ${r.title}` })),
    { file: `${hardware.name}.html`, label: hardware.nav, title: hardware.title },
  ];
  const nav = (here) => navItems.map((n) =>
    `<a href="${esc(n.file)}" title="${esc(n.title)}"${n.file === here ? ' aria-current="page"' : ''}>${esc(n.label)}</a>`).join('\n');

  const page = (file, { title, script, main, chapter, styles = [] }) => {
    const html = fill(frame, {
      page: esc(file.replace(/\.html$/, '')), csp: esc(CSP_META), title: esc(title), script: esc(script),
      styles: indent(styles.map((f) => `<link rel="stylesheet" href="${esc(f)}">`).join('\n'), 2),
      preload: indent(preloads(out, script, chapter), 2), nav: indent(nav(file), 6), main: indent(main, 4),
    }, `web/frame.html for ${file}`);
    fs.writeFileSync(path.join(out, file), html);
  };

  for (const sp of SITE_PAGES) {
    let main = fs.readFileSync(path.join(web, 'pages', `${sp.name}.html`), 'utf8');
    main = main.replace(/^( *)<!-- sb:parts -->$/m, (m, sp0) => indent(partsList(parts, byPart, catalog.chapters.filter((r) => r.page)), sp0.length));
    page(`${sp.name}.html`, { title: sp.name === 'index' ? sp.title : `${sp.title} · Scaling companion`, script: sp.script, main });
  }
  for (const r of catalog.chapters) {
    const dir = path.join(root, 'chapters', r.id);
    const pageFile = path.join(dir, 'page.html');
    const content = fs.existsSync(pageFile) ? fs.readFileSync(pageFile, 'utf8').trim() : '';
    const widgets = fs.existsSync(path.join(dir, 'widgets.js'));
    if (widgets) copy(path.join(dir, 'widgets.js'), path.join(out, 'widgets', `${r.id}.js`));
    // The chapter's own CSS (chapters/<id>/page.css), picked up like its widgets.
    const css = fs.existsSync(path.join(dir, 'page.css'));
    if (css) copy(path.join(dir, 'page.css'), path.join(out, 'css', `${r.id}.css`));
    // The reader's progress over the chapter's exercises (lib/page.js fills it).
    const head = `<header class="sb-intro">
  <p class="sb-kicker">${r.page ? 'Beyond the book · the chapters’ models beside published runs' : `Part ${r.part} · <a href="${esc(new URL(`${r.slug}/`, parts.book).href)}">read it in the book</a>`}</p>
  <h1>${esc(r.title)}</h1>${r.page ? '' : `
  <p class="sb-progress sb-page-progress" data-progress="${esc(r.id)}"></p>`}
</header>`;
    const main = [head, content, standardSections(r, content)].filter(Boolean).join('\n');
    page(`${r.slug}.html`, {
      title: `${r.title} · Scaling companion`, script: widgets ? `widgets/${r.id}.js` : 'lib/page.js', main,
      chapter: firstModuleUsed(catalog, r.id) ? r.id : null,
      styles: css ? [`css/${r.id}.css`] : [],
    });
  }
}

// `out` lets a test run assemble a site of its own instead of build/site.
export async function build({ quiet = false, out = defaultOut } = {}) {
  const chs = chapters();
  const files = chs.flatMap((ch) => [`scaling-${ch}`, `scaling-${ch}-problems`].flatMap((f) => [`${f}.mjs`, `${f}.wasm`]));
  const missing = files.filter((f) => !fs.existsSync(path.join(wasmDir, f)));
  if (missing.length) {
    throw new Error(`${missing.join(', ')} not found in ${wasmDir}: build the wasm modules first ` +
      '(NODE_PATH=/usr/share/nodejs cmake --preset wasm && cmake --build --preset wasm)');
  }
  const nm = path.join(root, 'node_modules');
  for (const dep of ['katex', 'uplot']) {
    if (!fs.existsSync(path.join(nm, dep))) throw new Error(`node_modules/${dep} missing: run npm install`);
  }
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });

  // A foreign page's example: its own whole document, no frame of ours.
  copy(path.join(web, 'embed-example.html'), path.join(out, 'embed-example.html'));
  for (const d of ['css', 'lib']) copy(path.join(web, d), path.join(out, d));

  // The wrapper minified, as the glue is: 2.1 -> 1.1 KB gzipped on every page's first download.
  fs.mkdirSync(path.join(out, 'wasm'), { recursive: true });
  fs.writeFileSync(path.join(out, 'wasm', 'scaling.js'), await minifyJs(fs.readFileSync(path.join(root, 'wasm', 'scaling.js'), 'utf8')));
  copy(path.join(root, 'wasm', 'scaling.d.ts'), path.join(out, 'wasm', 'scaling.d.ts'));
  for (const f of files) copy(path.join(wasmDir, f), path.join(out, 'wasm', f));
  const katex = path.join(nm, 'katex', 'dist');
  copy(path.join(katex, 'katex.mjs'), path.join(out, 'vendor', 'katex', 'katex.mjs'));
  copy(path.join(katex, 'katex.min.css'), path.join(out, 'vendor', 'katex', 'katex.min.css'));
  // The stylesheet refers to fonts/KaTeX_*.woff2 (and .woff/.ttf fallbacks); ship them all.
  copy(path.join(katex, 'fonts'), path.join(out, 'vendor', 'katex', 'fonts'));
  const uplot = path.join(nm, 'uplot', 'dist');
  copy(path.join(uplot, 'uPlot.esm.js'), path.join(out, 'vendor', 'uplot', 'uPlot.esm.js'));
  copy(path.join(uplot, 'uPlot.min.css'), path.join(out, 'vendor', 'uplot', 'uPlot.min.css'));
  for (const [dep, file] of [['katex', 'LICENSE'], ['uplot', 'LICENSE']]) {
    const lic = path.join(nm, dep, file);
    if (fs.existsSync(lic)) copy(lic, path.join(out, 'vendor', dep, 'LICENSE'));
  }
  // The published runs the validation page predicts (data/validation/*.json).
  const runs = path.join(root, 'data', 'validation');
  if (fs.existsSync(runs)) copy(runs, path.join(out, 'data', 'validation'));
  const catalog = await writeData(out, chs);
  writePages(out, catalog);

  if (!quiet) console.log(`site built in ${path.relative(process.cwd(), out) || out}`);
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  build().catch((e) => {
    console.error(`build:web: ${e.message}`);
    process.exit(1);
  });
}
