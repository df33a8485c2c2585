// Every calculator and chapter widget opens in a valid state for every page chip: each chapter page
// (from the chapter records) is opened with each chip of the chip tables as `?chip=<id>`, and every
// widget must show its output. The one exception is a chip without the hardware a widget models (a
// GPU has no ICI torus, no MXU): then the widget says so in words, naming the chip, and greys out
// everything it showed before, plot included. Needs the wasm build and /usr/bin/chromium.
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

// A widget in error is acceptable only where the chip lacks what it models: a GPU, named in the
// message, with everything the widget showed greyed out.
function judge(w, chip, where) {
  if (w.state === 'ok') return;
  assert.equal(chip.kind, 'gpu', `${where}: ${w.name} opens in an error on a ${chip.kind}: ${w.message}`);
  assert.ok(w.message.includes(chip.name), `${where}: ${w.name} must say in words what the ${chip.name} lacks; says: ${w.message}`);
  assert.ok(w.greyed, `${where}: ${w.name} is in error but does not grey out what it shows`);
}

test('every widget of every chapter page opens in a valid state for every page chip', async () => {
  const { chapters, chips } = await siteData();
  assert.ok(chapters.length > 0 && chips.length > 0);
  for (const ch of chapters) {
    for (const chip of chips) {
      await site.reset();
      const where = `${ch.slug}.html?chip=${chip.id}`;
      const page = await site.page(where);
      await settled(page);
      const widgets = await widgetStates(page);
      for (const w of widgets) judge(w, chip, where);
      // A GPU picked after a TPU: what the TPU showed must not stay as if it were the GPU's.
      if (chip.kind === 'gpu') {
        await page.evaluate(async (id) => (await import('./lib/core.js')).setChip(id), 'v5p');
        await settled(page);
        await page.evaluate(async (id) => (await import('./lib/core.js')).setChip(id), chip.id);
        await settled(page);
        for (const w of await widgetStates(page)) judge(w, chip, `${where}, after v5p`);
      }
      if (chip.id === 'h100' || chip.id === 'v5e') await site.shot(page, `chips-${ch.id}-${chip.id}`);
      await page.close();
    }
  }
});
