// Chapter widgets of the applied-inference page (its content: chapters/applied_inference/page.html);
// the site serves this file as widgets/applied_inference.js. The page shell (exercises, the page's
// chip and model) comes from lib/page.js. Every number shown is the module's: this file only lays
// out the dtype table of applied-inference.slices and the chips of applied-inference.cost.
import '../lib/page.js';
import { SbCalc, fmtQuantity, fmtNumber, h } from '../lib/widgets.js';

const COLUMNS = [
  ['slice', (r) => `${r.shape} (${fmtNumber(r.chips, 5)})`],
  ['weights', (r) => fmtQuantity(r.bytes_w, 'B')],
  ['KV per token', (r) => fmtQuantity(r.kv_tok, 'B')],
  ['HBM left', (r) => fmtQuantity(r.hbm_left, 'B')],
  ['batch', (r) => fmtNumber(r.B_max, 6)],
  ['critical batch', (r) => fmtNumber(r.B_crit, 4)],
  ['step', (r) => fmtQuantity(r.T_step, 's')],
  ['queries/s per chip', (r) => fmtNumber(r.qps_chip, 3)],
  ['tokens/s per chip', (r) => fmtNumber(r.tok_s_chip, 4)],
  ['$ per M tokens', (r) => (r.cost_per_m > 0 ? `$${fmtNumber(r.cost_per_m, 3)}` : '\u2014')],
];

function table(caption, head, rows) {
  return h('div', { class: 'sb-table-scroll' }, h('table', { class: 'sb-ai-table' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, head.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, rows)));
}

function drawSlices(r, extra) {
  const rows = r.rows.map((w) => h('tr', { 'data-dtype': w.dtype },
    h('th', { scope: 'row' }, w.dtype),
    w.fits ? COLUMNS.map(([, f]) => h('td', {}, f(w)))
      : h('td', { colspan: COLUMNS.length }, 'no slice holds the weights and one cache')));
  extra.replaceChildren(table('Each dtype on its slice, at the largest batch that fits', ['dtype', ...COLUMNS.map(([t]) => t)], rows));
}
SbCalc.addRenderer('applied-inference.slices', drawSlices);

function drawCost(r, extra) {
  const rows = r.chips.map((c) => h('tr', {}, h('th', { scope: 'row' }, c.chip), h('td', {}, `$${fmtNumber(c.price, 3)}`),
    h('td', {}, fmtNumber(c.flops_per_usd, 3))));
  extra.replaceChildren(table('bf16 FLOPs a dollar buys', ['chip', 'per chip-hour', 'FLOPs per dollar'], rows));
}
SbCalc.addRenderer('applied-inference.cost', drawCost);
