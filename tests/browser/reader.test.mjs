// The pages as a reader meets them: one model for the page and across chapters, one address write
// per change, a GPU page chip said once at the top while the widgets compute on a TPU, the grading
// notes the CLI prints, labels in words, no page wider than a phone, and axe-core (wcag2a, wcag2aa)
// finding nothing after every widget has been used. Needs the wasm build and chromium-headless-shell.
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { startSite } from './harness.mjs';
import { settled } from './widgetstate.mjs';

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

// The chapter pages whose calculators take a model, from the catalogue.
async function modelPages() {
  const page = await site.page('index.html');
  const out = await page.evaluate(async () => {
    const core = await import('./lib/core.js');
    const { chapters, calculators } = await core.catalog();
    return chapters.filter((ch) => calculators.some((c) => c.chapter === ch.id && c.params.some((p) => p.name === 'model')))
      .map((ch) => ({ slug: ch.slug, choices: calculators.filter((c) => c.chapter === ch.id).flatMap((c) => c.params.filter((p) => p.name === 'model' && p.choices).map((p) => p.choices)) }));
  });
  await page.close();
  return out;
}

// Counts history.replaceState calls on the page (window.__urlWrites).
async function countWrites(page) {
  await page.evaluate(() => {
    window.__urlWrites = 0;
    const orig = history.replaceState.bind(history);
    history.replaceState = (...a) => { window.__urlWrites += 1; return orig(...a); };
  });
}

// The model of each calculator with a model input. One whose menu lacks the page's model (a
// mixture-of-experts calculator under a dense page model) keeps its own and says so: it must
// truly lack it, and its note must name it.
const modelsOn = (page, pageModel = null) => page.evaluate((want) => {
  const out = [];
  for (const c of document.querySelectorAll('sb-calc')) {
    if (!c.fields?.has('model')) continue;
    const note = c.querySelector('.sb-model-note');
    if (!want || !note || note.hidden) { out.push(c.inputs().model); continue; }
    const menu = [...c.querySelectorAll('select[name="model"] option')].map((o) => o.value);
    // The page model's words, as another calculator's menu shows them.
    const named = [...document.querySelectorAll(`select[name="model"] option[value="${CSS.escape(want)}"]`)][0]?.textContent;
    if (menu.includes(want) || !named || !note.textContent.includes(`The page's model, ${named},`)) {
      out.push(`${c.getAttribute('name')} says "${note.textContent}"`);
    }
  }
  return out;
}, pageModel);

test('the model is the page\'s: one widget\'s choice moves them all, with one address write, and the next chapter opens on it', async () => {
  await site.reset();
  const pages = await modelPages();
  const menu = pages.find((p) => p.choices.length);
  assert.ok(menu, 'a chapter offers a menu of models');
  const page = await site.page(`${menu.slug}.html`);
  await settled(page);
  await countWrites(page);
  // A model other than the one shown, from the menu of the first calculator that has one.
  const select = page.locator('sb-calc select[name="model"]').first();
  const target = menu.choices[0].find((m) => m !== 'custom' && m !== 'llama-3-70b');
  await select.selectOption(target);
  await settled(page);
  assert.deepEqual([...new Set(await modelsOn(page))], [target], 'every model calculator follows');
  assert.equal(await page.evaluate(() => window.__urlWrites), 1, 'one history.replaceState for the change');
  assert.equal(new URL(page.url()).searchParams.get('model'), target, 'the address carries the model');
  // Every other page with a model input opens on it, with model= in its address.
  for (const p of pages) {
    const next = await site.page(`${p.slug}.html`);
    await settled(next);
    assert.deepEqual([...new Set(await modelsOn(next, target))], [target], `${p.slug}.html follows the reader's model`);
    assert.equal(new URL(next.url()).searchParams.get('model'), target, `${p.slug}.html's address`);
    await next.close();
  }
  // A shared link wins over the reader's last choice.
  const linked = await site.page(`${menu.slug}.html?model=llama-3-8b`);
  await settled(linked);
  assert.deepEqual([...new Set(await modelsOn(linked))], ['llama-3-8b']);
  await linked.close();
  await page.close();
});

test('a GPU page chip: one note at the top in words, the planners and layouts on the GPU, the regime map on the last TPU, none dimmed', async () => {
  await site.reset();
  const page = await site.page('training.html?chip=v5p');
  await settled(page);
  await page.evaluate(async () => (await import('./lib/core.js')).setChip('b200'));
  await settled(page);
  const note = page.locator('#sb-gpu-notice');
  assert.equal(await note.count(), 1);
  const text = await note.textContent();
  assert.match(text, /NVIDIA B200 is a GPU/);
  assert.match(text, /TPU v5p, the last TPU chip you picked/);
  const states = await page.evaluate(() => [...document.querySelectorAll('sb-calc')].map((c) => ({
    name: c.getAttribute('name'), ok: c.response?.ok, stale: c.classList.contains('sb-stale'), chip: c.inputs().chip })));
  // The planners, one strategy and the FSDP x TP split lay out the GPU cluster itself; the regime
  // map (a sweep over TPU slices) computes on the TPU.
  const onGpu = new Set(['training.plan', 'training.versus', 'training.strategy', 'training.split']);
  for (const s of states) {
    assert.equal(s.ok, true, `${s.name} answers`);
    assert.equal(s.stale, false, `${s.name} is not dimmed`);
    assert.equal(s.chip, onGpu.has(s.name) ? 'b200' : 'v5p', `${s.name} computes on ${onGpu.has(s.name) ? 'the GPU' : 'the TPU'}`);
  }
  // Back on a TPU, the note goes.
  await page.evaluate(async () => (await import('./lib/core.js')).setChip('v5e'));
  await settled(page);
  assert.equal(await note.count(), 0);
  await page.close();
});

test('a heavy calculator runs in a worker and the page keeps its last answer meanwhile', async () => {
  await site.reset();
  const requests = [];
  const page = await site.page('training.html', { requests });
  await settled(page);
  const heavy = await page.evaluate(async () => (await (await import('./lib/core.js')).catalog()).calculators.filter((c) => c.heavy).map((c) => c.name));
  assert.ok(heavy.includes('training.plan'), `the registry marks the planner heavy (${heavy})`);
  assert.ok(requests.some((u) => u.endsWith('/lib/worker.js')), 'the planner\'s worker started');
  // The search size shown is the answer's own, after an edit too.
  const line = page.locator('sb-training-planner .sb-train-timing');
  const configs = () => page.evaluate(() => document.querySelector('sb-calc[name="training.plan"]').response.values.configs.value);
  assert.equal(await line.textContent(), `Searched ${await configs()} configurations.`);
  const before = await configs();
  await page.locator('sb-calc[name="training.plan"] select[name="pipeline"]').selectOption('no');
  await settled(page);
  // Without pipeline stages the search is smaller, and the line says the new size.
  const n = await configs();
  assert.ok(n < before, `${n} < ${before}`);
  assert.equal(await line.textContent(), `Searched ${n} configurations.`, 'the line follows the new search');
  await page.close();
});

// A host page of another origin cannot start the site's worker: there the heavy calculators
// compute on the page itself, from the chapter's second module (lib/core.js compute). Before the
// thirteenth pass that fallback called moduleOf with its arguments one place off and never
// answered.
test('where no worker can start, a heavy calculator computes on the page from the second module', async () => {
  await site.reset();
  const requests = [];
  const page = await site.context.newPage();
  page.on('request', (req) => requests.push(req.url()));
  await page.addInitScript(() => {
    window.Worker = class { constructor() { throw new DOMException('no worker here', 'SecurityError'); } };
  });
  await site.open(page, 'training.html');
  await settled(page);
  const plan = await page.evaluate(() => document.querySelector('sb-calc[name="training.plan"]').response);
  assert.equal(plan.ok, true, JSON.stringify(plan.error));
  assert.ok(plan.values.configs.value > 0, 'the planner searched');
  assert.equal(await page.locator('sb-calc[name="training.plan"] .sb-results tr[data-key]').count() > 0, true, 'its values are shown');
  assert.ok(!requests.some((u) => u.endsWith('/lib/worker.js')), 'no worker was started');
  assert.ok(requests.some((u) => u.endsWith('/wasm/scaling-training-problems.wasm')), 'the second module was loaded on the page');
  await page.close();
});

// A problem, slot and answer the module grades correct by a rule other than the exact value (the
// book's rounding or its GB for GiB), found among the chapter's problems.
async function answerWithNote(page, chapter) {
  return page.evaluate(async (ch) => {
    const core = await import('./lib/core.js');
    const sb = await core.problems(ch);
    for (const { id } of await core.problemsOf(ch)) {
      const p = sb.problem(id);
      for (const s of p.slots.filter((x) => x.kind === 'number')) {
        const v = p.answers[s.name].value;
        for (const text of [String(v * 1.0737418), String(v / 1.0737418), String(Number(v.toPrecision(2)))]) {
          const r = sb.check(id, { [s.name]: text });
          const res = r.ok && r.results.find((x) => x.slot === s.name);
          if (res && res.verdict === 'correct' && res.note) return { id, slot: s.name, text, note: res.note };
        }
      }
    }
    return null;
  }, chapter);
}

test('an answer graded correct by the book\'s rounding or shortcut shows the note the CLI prints', async () => {
  await site.reset();
  const page = await site.page('transformers.html');
  await settled(page);
  const found = await answerWithNote(page, 'transformers') ?? await answerWithNote(page, 'roofline');
  assert.ok(found, 'some answer is accepted with a note');
  const ex = page.locator(`sb-exercise[problem="${found.id}"]`);
  if (!(await ex.count())) return;  // the roofline fallback lives on its own page
  await ex.locator(`[name="${found.slot}"]`).fill(found.text);
  await ex.locator('button[data-action="check"]').click();
  const slot = ex.locator(`[data-slot="${found.slot}"]`);
  assert.equal(await slot.locator('.sb-slot-verdict').textContent(), 'Correct');
  assert.equal(await slot.locator('.sb-slot-hint.sb-slot-note').textContent(), found.note);
  await page.close();
});

// Uses every widget of the page: opens every details, presses every button but New variant (which
// replaces the exercise), types each calculator's first number again; then waits for the answers.
async function useEverything(page) {
  await page.evaluate(() => {
    for (const d of document.querySelectorAll('main details')) d.open = true;
    for (const b of document.querySelectorAll('main button:not([disabled])')) if (b.dataset.action !== 'variant') b.click();
    for (const c of document.querySelectorAll('sb-calc')) {
      const input = c.querySelector('.sb-form input[type="text"]');
      if (input) { input.value = input.value; input.dispatchEvent(new Event('input', { bubbles: true })); }
    }
  });
  await settled(page);
}

async function sitePages() {
  const page = await site.page('index.html');
  const chapters = await page.evaluate(async () => (await import('./lib/core.js')).chapters());
  await page.close();
  return ['index.html', 'hardware.html', ...chapters.map((c) => `${c.slug}.html`)];
}

// What a page shows at 390 px: no wider than the screen; labels are words, not internal names.
async function assertPhoneWidth(page, file) {
  await page.setViewportSize({ width: 390, height: 844 });
  await settled(page);
  const wide = await page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const out = [];
    for (const el of document.querySelectorAll('main *')) {
      const r = el.getBoundingClientRect();
      if (r.width && r.right > vw + 1 && !el.closest('.sb-table-scroll, [class*="-box"], .sb-step-math, .katex-display')) out.push(`${el.tagName.toLowerCase()}.${el.className}`);
    }
    return { scroll: document.documentElement.scrollWidth, vw, out: [...new Set(out)].slice(0, 8) };
  });
  assert.ok(wide.scroll <= wide.vw, `${file} at 390 px is ${wide.scroll} px wide: ${wide.out.join(', ')}`);
  // A form label is the parameter's words, a choice its words: never the internal name
  // (seq_len, optimizer_bytes, save_all).
  const names = await page.evaluate(() => [...document.querySelectorAll('sb-calc .sb-field')].flatMap((f) => {
    const name = f.dataset.field;
    const label = f.querySelector('label').textContent;
    const options = [...f.querySelectorAll('option')].map((o) => o.textContent).filter((t) => /_/.test(t));
    return [...(name.includes('_') && label.includes(name) ? [`${name}: ${label}`] : []), ...options];
  }));
  assert.deepEqual(names, [], `${file}: internal names on screen`);
  await site.shot(page, `reader-390-${file.replace('.html', '')}`);
}

// axe-core (wcag2a, wcag2aa) on the page at the harness's width, after every widget is used.
async function assertAxeClean(page, file) {
  await page.setViewportSize({ width: 1200, height: 900 });
  await settled(page);
  await useEverything(page);
  await page.evaluate(axeSource);
  // KaTeX's visual layer is aria-hidden (its MathML is what is read) and takes the colour of the
  // text around it: left out, it saves a third of axe's time on a page of derivations. Every
  // derivation has been opened and drawn (a drawing that fails is a page error), but axe reads
  // one calculator's and one exercise's, the others emptied first: renderTrace draws them all
  // with the same elements and classes, and axe's time grows with every element of the page,
  // excluded or not (bench/NOTES.md, fourth pass: 38 -> 24 s over the ten pages).
  await page.evaluate(() => {
    for (const kind of ['sb-calc', 'sb-exercise']) {
      for (const b of [...document.querySelectorAll(`${kind} .sb-derivation-body`)].slice(1)) b.replaceChildren();
    }
  });
  // What a calculator in error still shows of its last answer is greyed on purpose (it is no
  // longer the answer; the error beside the field is, and axe reads that): left out, as WCAG
  // leaves out the text of inactive components.
  const violations = await page.evaluate(async () => (await window.axe.run({ exclude: [['.katex-html'], ['.sb-stale .sb-calc-out > :not(.sb-form-error)'], ['.sb-stale .sb-calc-extra']] }, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] }, resultTypes: ['violations'] })).violations
    .map((v) => `${v.id} (${v.impact}): ${v.help}; ${v.nodes.length} node(s), e.g. ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`));
  const stale = await page.evaluate(() => [...document.querySelectorAll('.sb-stale')].map((c) =>
    `${c.getAttribute('name') || c.dataset.sbWidget}: ${c.response?.error?.field}: ${c.response?.error?.message ?? c.textContent.slice(0, 120)}`));
  assert.deepEqual(violations, [], `${file}:\n  ${violations.join('\n  ')}\n  greyed: ${stale.join('; ')}`);
}

// One load per page serves both checks: the page is first narrowed to a phone's width, then set
// back to the harness's and used (a load is the unit of a browser test's cost; the two checks
// loaded every page once each).
test('every page at 390 px is no wider than the screen with labels in words; axe-core (wcag2a, wcag2aa) finds no violation after every widget is used', async () => {
  await site.reset();
  for (const file of await sitePages()) {
    const page = await site.page(file);
    await settled(page);
    await assertPhoneWidth(page, file);
    await assertAxeClean(page, file);
    await page.close();
  }
});
