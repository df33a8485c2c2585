// Chapter widgets of the profiling page (its content: chapters/profiling/page.html); served as
// widgets/profiling.js. Everything shown is computed by the core: the HLO paste box sends the text
// to profiling.hlo (in the page's worker: a module may be 16 MiB) on the page's chip and draws its
// table; the tiling grid draws the offsets profiling.tiling sends.
import '../lib/page.js';
import { SbCalc, scaling, compute, h, fmtQuantity, ensureWidgetStyles, getChip, onChip } from '../lib/widgets.js';

// The tiling calculator: each element's place in memory, padding greyed.
SbCalc.addRenderer('profiling.tiling', (r, extra) => {
  const o = r.order;
  if (!o) {
    extra.replaceChildren();
    return;
  }
  const rows = o.offsets.map((row, i) => h('tr', {}, ...row.map((v, j) => {
    const pad = i >= o.rows || j >= o.cols;
    return h('td', { class: pad ? 'sb-pad' : '' }, String(v));
  })));
  extra.replaceChildren(h('p', { class: 'sb-muted' }, `Padded shape [${r.padded_shape.join(', ')}]: each cell is the element's place in memory.`),
    h('table', { class: 'sb-tiles', 'aria-label': 'element order in memory' }, h('tbody', {}, rows)));
});

// The worked profile: predicted beside reported.
SbCalc.addRenderer('profiling.worked', (r, extra) => {
  const t = (v) => (v == null ? '—' : fmtQuantity(v, 's'));
  const rows = (r.ops || []).map((o) => h('tr', {}, h('th', { scope: 'row' }, o.op), h('td', {}, h('code', {}, o.shapes)),
    h('td', {}, t(o.predicted_s)), h('td', {}, t(o.reported_s)),
    h('td', {}, o.efficiency == null ? '—' : `${(o.efficiency * 100).toFixed(1)}%`)));
  extra.replaceChildren(h('table', { class: 'sb-results' },
    h('thead', {}, h('tr', {}, h('th', {}, 'op'), h('th', {}, 'local shapes'), h('th', {}, 'roofline'), h('th', {}, 'the profile'), h('th', {}, 'roofline / profile'))),
    h('tbody', {}, rows)));
});

const COLUMNS = [['op', 'op'], ['opcode', 'opcode'], ['shape', 'result'], ['bytes', 'bytes'], ['flops', 'FLOPs'],
  ['coll', 'collective'], ['time', 'predicted time'], ['bound', 'bound']];

function shapeText(i) {
  const s = `${i.dtype}[${i.shape.join(',')}]`;
  return i.padded_shape && i.padded_bytes !== i.bytes ? `${s} (padded [${i.padded_shape.join(',')}])` : s;
}

function row(i) {
  const coll = i.collective ? `${i.collective}: ${fmtQuantity(i.payload_bytes ?? NaN, 'B')} over ${i.group_size ?? 'unknown'}` : '';
  const bytes = i.padded_bytes != null && i.padded_bytes !== i.bytes
    ? `${fmtQuantity(i.bytes, 'B')} (${fmtQuantity(i.padded_bytes, 'B')} padded)` : fmtQuantity(i.bytes, 'B');
  return h('tr', {}, h('th', { scope: 'row' }, i.name), h('td', {}, i.opcode), h('td', {}, h('code', {}, shapeText(i))),
    h('td', {}, bytes), h('td', {}, i.flops == null ? 'unknown' : fmtQuantity(i.flops, 'flop')), h('td', {}, coll),
    h('td', {}, i.time_s == null ? 'unknown' : fmtQuantity(i.time_s, 's')), h('td', {}, i.bound ?? ''));
}

const SHOWN = 200;  // rows drawn; a long module's rest are in the CLI's JSON

// <sb-hlo-reader>: the paste box, its totals, the table of ops by predicted time, the skipped lines.
class SbHloReader extends HTMLElement {
  async connectedCallback() {
    if (this.started) return;
    this.started = true;
    ensureWidgetStyles();
    this.classList.add('sb-widget');
    this.sb = await scaling('profiling');
    const info = this.sb.list().calculators.find((c) => c.name === 'profiling.hlo');
    const param = (n) => info.params.find((p) => p.name === n);
    this.text = h('textarea', { rows: 14, spellcheck: 'false', 'aria-label': 'HLO text', class: 'sb-log' });
    this.text.style.cssText = 'width: 100%; box-sizing: border-box; font-family: monospace; white-space: pre; overflow-x: auto;';
    this.text.value = param('module').default;
    this.devices = h('input', { type: 'text', value: '0', size: 6, 'aria-label': 'devices (0: not known)' });
    this.hbm = h('input', { type: 'text', value: '0', size: 10, 'aria-label': 'HBM bandwidth where the tables have none (0: the chip\u2019s)' });
    const label = (t, el) => h('label', { class: 'sb-inline' }, `${t} `, el);
    this.error = h('p', { class: 'sb-error', role: 'alert', hidden: true });
    this.summary = h('table', { class: 'sb-results' });
    this.notes = h('ul', { class: 'sb-notes' });
    this.table = h('div', { class: 'sb-scroll' });
    this.skipped = h('details', {}, h('summary', {}, 'Lines skipped'), h('ul', {}));
    const button = h('button', { type: 'button', class: 'sb-button', onclick: () => this.run() }, 'Read');
    this.replaceChildren(
      h('header', { class: 'sb-widget-head' }, h('h3', {}, info.title), h('p', { class: 'sb-doc' }, info.doc)),
      this.text, h('div', { class: 'sb-form-row' }, label('devices', this.devices), label('HBM bandwidth (B/s)', this.hbm), button),
      this.error, this.summary, this.notes, this.table, this.skipped);
    onChip(() => this.run());
    this.run();
  }

  async run() {
    const inputs = { module: this.text.value, chip: getChip(), devices: this.devices.value || '0', hbm_bw: this.hbm.value || '0' };
    const job = (this.job = (this.job || 0) + 1);
    this.setAttribute('aria-busy', 'true');
    const r = await compute('profiling.hlo', inputs);
    if (job !== this.job) return;
    this.removeAttribute('aria-busy');
    this.response = r;
    this.error.hidden = r.ok;
    if (!r.ok) {
      this.error.textContent = r.error.message;
      this.summary.replaceChildren();
      this.table.replaceChildren();
      return;
    }
    const t = r.totals;
    const facts = [['instructions read', String(t.instructions)], ['counted in the step', String(t.counted)],
      ['lines skipped', String(t.skipped)], ['FLOPs', fmtQuantity(t.flops, 'flop')], ['HBM traffic', fmtQuantity(t.traffic_bytes, 'B')],
      ['collective payload', fmtQuantity(t.collective_bytes, 'B')], [`predicted step on ${r.inputs?.chip ?? getChip()}`, fmtQuantity(t.step_s, 's')]];
    this.summary.replaceChildren(h('tbody', {}, facts.map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', {}, v)))));
    this.notes.replaceChildren(...(r.notes || []).map((n) => h('li', {}, n)));
    const shown = r.order.slice(0, SHOWN).map((k) => row(r.instructions[k]));
    this.table.replaceChildren(h('table', { class: 'sb-results sb-hlo' },
      h('thead', {}, h('tr', {}, COLUMNS.map(([, l]) => h('th', { scope: 'col' }, l)))), h('tbody', {}, shown)));
    if (r.order.length > SHOWN) this.table.append(h('p', { class: 'sb-muted' }, `The ${SHOWN} slowest of ${r.order.length} ops; scaling hlo FILE --json lists them all.`));
    const list = this.skipped.querySelector('ul');
    list.replaceChildren(...r.skipped.slice(0, 500).map((s) => h('li', {}, `line ${s.line}: ${s.reason}`)));
    this.skipped.hidden = r.skipped.length === 0;
  }
}
if (!customElements.get('sb-hlo-reader')) customElements.define('sb-hlo-reader', SbHloReader);
