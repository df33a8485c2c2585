// Throwaway: element screenshots of the widgets, for a person to look at.
import { startSite } from './harness.mjs';
const site = await startSite();
const want = {
  'roofline.html': ['roofline.roofs', 'roofline.batch', 'roofline.matmul'],
  'tpus.html': ['tpus.ladder', 'tpus.transfer'],
  'sharding.html': ['sharding.ring', 'sharding.strategies'],
  'transformers.html': ['transformers.accounting', 'transformers.context', 'transformers.kv', 'transformers.models'],
  'training.html': ['training.plan', 'training.regime', 'training.strategy', 'training.split'],
  'applied-training.html': ['applied-training.case', 'applied-training.plan'],
};
for (const [pageName, names] of Object.entries(want)) {
  const page = await site.page(pageName);
  await page.waitForTimeout(2500);
  const found = await page.evaluate(() => [...document.querySelectorAll('sb-calc, [data-sb-widget]')].map((e) => e.getAttribute('name') || e.getAttribute('data-sb-widget')));
  console.log(pageName, JSON.stringify(found));
  for (const n of names) {
    const el = page.locator(`sb-calc[name="${n}"], [data-sb-widget="${n}"]`).first();
    if (!(await el.count())) { console.log('  missing', n); continue; }
    await el.scrollIntoViewIfNeeded();
    await el.screenshot({ path: `/tmp/look/${n}.png` });
  }
  // first exercise
  const ex = page.locator('sb-exercise').first();
  if (await ex.count()) { await ex.scrollIntoViewIfNeeded(); await ex.screenshot({ path: `/tmp/look/${pageName}-exercise.png` }); }
  await page.close();
}
await site.close();
