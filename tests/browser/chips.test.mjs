// Every calculator and chapter widget is in a valid state for every page chip: each chapter page
// (from the chapter records) is opened on a GPU as `?chip=<id>` and then set to each chip of the
// chip tables, and every widget must show its output. The one exception is a chip without the
// hardware a widget models (a GPU has no ICI torus, no MXU): then the widget says so in words,
// naming the chip, and greys out everything it showed before, plot included. Needs the wasm build and chromium-headless-shell.
import { test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { startSite } from './harness.mjs';
import { settled, widgetStates } from './widgetstate.mjs';

let site;
before(async () => { site = await startSite(); });
after(async () => { await site?.close(); });
afterEach(() => { try { site.assertClean(); } finally { site.problems.length = 0; } });

// The chapter records and the chip tables, as the site serves them.
async function siteData() {
  const page = await site.page('index.html');
  const data = await page.evaluate(async () => {
    const core = await import('./lib/core.js');
    return { chapters: await core.chapters(), chips: (await core.chipTable()).chips };
  });
  await page.close();
  return data;
}

// A widget in error is acceptable only where the chip lacks what it models: a GPU, or a chip whose
// tables state a figure not known (TPU v2's HBM bandwidth: "value": null), named in the message
// (which says the figure is not known, or that the book gives none), with everything the widget
// showed greyed out.
function judge(w, chip, where) {
  if (w.state === 'ok') return;
  const partial = Object.values(chip.specs).some((s) => s.value === null);
  assert.ok(chip.kind === 'gpu' || partial, `${where}: ${w.name} opens in an error on a ${chip.kind}: ${w.message}`);
  assert.ok(w.message.includes(chip.name), `${where}: ${w.name} must say in words what the ${chip.name} lacks; says: ${w.message}`);
  if (chip.kind !== 'gpu') assert.match(w.message, /is not known|gives no [A-Za-z]/, `${where}: ${w.name} must say which figure of the ${chip.name} is not known or not given`);
  assert.ok(w.greyed, `${where}: ${w.name} is in error but does not grey out what it shows`);
}

// Judges every widget of the page against the chip it computes on: the page chip, except for a
// calculator on a chip of its own (a GPU calculator keeps its GPU under a TPU page chip; a TPU
// calculator computes on the last TPU under a GPU page chip).
async function judgeAll(page, chip, chips, where) {
  const own = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('sb-calc')]
    .filter((c) => c.fields?.has('chip')).map((c) => [`sb-calc ${c.getAttribute('name')}${c.id ? '#' + c.id : ''}`, c.inputs().chip])));
  for (const w of await widgetStates(page)) judge(w, chips.find((c) => c.id === own[w.name]) ?? chip, where);
}

// One load per chapter page, opened on the first GPU; then the page chip moves through every chip
// of the tables in the page itself, as the chip picker moves it, with v5p before that first GPU
// (what the TPU showed must not stay as if it were the GPU's; the other GPUs come after a GPU). A
// load per chip and page was 700 s of the browser layer; the widgets follow a chip change through
// the same code either way.
test('every widget of every chapter page opens in a valid state for every page chip', async () => {
  const { chapters, chips } = await siteData();
  assert.ok(chapters.length > 0 && chips.length > 0);
  const gpu = chips.find((c) => c.kind === 'gpu');
  for (const ch of chapters) {
    await site.reset();
    const page = await site.page(`${ch.slug}.html?chip=${gpu.id}`);
    await settled(page);
    await judgeAll(page, gpu, chips, `${ch.slug}.html?chip=${gpu.id}`);
    for (const chip of chips) {
      const set = (id) => page.evaluate(async (c) => (await import('./lib/core.js')).setChip(c), id);
      if (chip === gpu) { await set('v5p'); await settled(page); }
      await set(chip.id);
      await settled(page);
      const where = `${ch.slug}.html, page chip set to ${chip.id}${chip === gpu ? ' after v5p' : ''}`;
      await judgeAll(page, chip, chips, where);
      if (chip.kind !== 'gpu') {
        // Every calculator that takes the page's TPU computes on it (a GPU calculator keeps its GPU);
        // one in error was judged above (a figure the tables state is not known).
        const off = await page.evaluate((id) => [...document.querySelectorAll('sb-calc')]
          .filter((c) => c.response?.ok && c.fields?.has('chip') && c.takesPageChip(c.fields.get('chip').param, id))
          .filter((c) => c.response?.inputs?.chip !== id).map((c) => c.getAttribute('name')), chip.id);
        assert.deepEqual(off, [], `${where}: these compute on another chip`);
      }
      if (chip.id === 'h100' || chip.id === 'v5e') await site.shot(page, `chips-${ch.id}-${chip.id}`);
    }
    await page.close();
  }
});
