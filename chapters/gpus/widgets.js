// Chapter widgets of the gpus page (its content: chapters/gpus/page.html); the site serves this
// file as widgets/gpus.js. The page shell (calculators and one exercise per problem) comes from
// lib/page.js. Everything shown is computed by the core: the chip table (gpus.chip), the presets
// only fill inputs of gpus.llm, and the paste box sends the log to gpus.fit and draws its points.
import '../lib/page.js';
import { SbCalc, scaling, compute, h, logLogPlot, fmtQuantity, fmtNumber, ensureWidgetStyles } from '../lib/widgets.js';

// The chip explorer's side-by-side table: the GPU's term and figure beside the TPU's.
SbCalc.addRenderer('gpus.chip', (r, extra) => {
  const cell = (v, unit) => (v == null ? '—' : fmtQuantity(v, unit));
  const rows = (r.table || []).map((t) => h('tr', {},
    h('th', { scope: 'row' }, t.gpu), h('td', {}, cell(t.gpu_value, t.unit)),
    h('th', { scope: 'row' }, t.tpu), h('td', {}, cell(t.tpu_value, t.unit))));
  extra.replaceChildren(h('div', { class: 'sb-gpu-tpu-wrap' }, h('table', { class: 'sb-results sb-gpu-tpu' },
    h('thead', {}, h('tr', {}, h('th', {}, 'GPU'), h('th', {}, r.gpu_name ?? ''), h('th', {}, 'TPU'), h('th', {}, r.tpu_name ?? ''))),
    h('tbody', {}, rows))));
});

// The collective calculator: which level binds and the TPU slice it was compared with.
SbCalc.addRenderer('gpus.collective', (r, extra) => {
  const parts = [];
  if (r.binds) parts.push(`The ${r.binds} level binds.`);
  if (r.tpu_slice) parts.push(`TPU slice: ${r.tpu_slice}.`);
  extra.replaceChildren(h('p', { class: 'sb-muted' }, parts.join(' ')));
});

// The chapter's worked examples as inputs of gpus.llm (nothing is computed here).
const PRESETS = {
  'LLaMA 3 70B on 4096 H100s (Quiz 5)': { chip: 'h100', model: 'llama-3-70b', batch: '4e6', gpus: '4096', tp: '8', pp: '8', ep: '1' },
  'LLaMA 3 405B on 16k H100s': { chip: 'h100', model: 'llama-3.1-405b', batch: '16e6', gpus: '16384', tp: '8', pp: '16', ep: '1' },
  'DeepSeek-V3 on 2048 H800s (as H100s)': { chip: 'h100', model: 'deepseek-v3', batch: '62914560', gpus: '2048', tp: '1', pp: '16', ep: '64' },
};
class SbLlmPresets extends HTMLElement {
  connectedCallback() {
    if (this.started) return;
    this.started = true;
    ensureWidgetStyles();
    const target = () => document.getElementById(this.getAttribute('for'));
    this.replaceChildren(h('div', { class: 'sb-presets' }, h('span', { class: 'sb-muted' }, 'Presets: '),
      ...Object.entries(PRESETS).map(([name, values]) =>
        h('button', { type: 'button', class: 'sb-button', onclick: () => target()?.setInputs(values) }, name))));
  }
}
if (!customElements.get('sb-llm-presets')) customElements.define('sb-llm-presets', SbLlmPresets);

// <sb-nccl-fit>: the paste box. The log goes to gpus.fit as it is, in the page's worker (a heavy
// calculator: a log may be 16 MiB); the plot shows the measured out-of-place times, the fitted
// latency + size / bandwidth and the chapter's time for the cluster.
class SbNcclFit extends HTMLElement {
  async connectedCallback() {
    if (this.started) return;
    this.started = true;
    ensureWidgetStyles();
    this.classList.add('sb-widget');
    this.sb = await scaling('gpus');
    const info = this.sb.list().calculators.find((c) => c.name === 'gpus.fit');
    const param = (n) => info.params.find((p) => p.name === n);
    this.text = h('textarea', { rows: 14, spellcheck: 'false', 'aria-label': 'nccl-tests output', class: 'sb-log' });
    // The whole width, in a monospace font: a log's columns line up.
    this.text.style.cssText = 'width: 100%; box-sizing: border-box; font-family: monospace; white-space: pre; overflow-x: auto;';
    this.text.value = param('log').default;
    this.opts = {
      collective: h('select', { 'aria-label': 'collective' }, param('collective').choices.map((c) => h('option', { value: c }, c))),
      ranks: h('input', { type: 'text', value: '0', size: 5, 'aria-label': 'ranks (0: from the log)' }),
      gpu: h('input', { type: 'text', value: '', size: 8, placeholder: 'from the log', 'aria-label': 'GPU' }),
      nodes: h('input', { type: 'text', value: '0', size: 5, 'aria-label': 'nodes (0: from the log)' }),
    };
    const label = (t, el) => h('label', { class: 'sb-inline' }, `${t} `, el);
    this.error = h('p', { class: 'sb-error', role: 'alert', hidden: true });
    this.results = h('table', { class: 'sb-results' });
    this.notes = h('ul', { class: 'sb-notes' });
    this.plotEl = h('div', { class: 'sb-plot' });
    this.skipped = h('details', {}, h('summary', {}, 'Lines skipped'), h('ul', {}));
    const button = h('button', { type: 'button', class: 'sb-button', onclick: () => this.run() }, 'Read and fit');
    this.replaceChildren(
      h('header', { class: 'sb-widget-head' }, h('h3', {}, info.title), h('p', { class: 'sb-doc' }, info.doc)),
      this.text,
      h('div', { class: 'sb-form-row' }, label('collective', this.opts.collective), label('ranks', this.opts.ranks),
        label('GPU', this.opts.gpu), label('nodes', this.opts.nodes), button),
      this.error, this.results, this.notes, this.plotEl, this.skipped);
    this.run();
  }

  async run() {
    const inputs = { log: this.text.value, collective: this.opts.collective.value, ranks: this.opts.ranks.value || '0',
      gpu: this.opts.gpu.value, nodes: this.opts.nodes.value || '0' };
    const job = (this.job = (this.job || 0) + 1);
    this.setAttribute('aria-busy', 'true');
    const r = await compute('gpus.fit', inputs);
    if (job !== this.job) return;  // a later run's answer is the one to show
    this.removeAttribute('aria-busy');
    this.response = r;
    this.error.hidden = r.ok;
    if (!r.ok) {
      this.error.textContent = r.error.message;
      this.results.replaceChildren();
      this.notes.replaceChildren();
      return;
    }
    const rep = r.report;
    const head = [['collective', rep.collective ?? 'unknown'], ['ranks', rep.ranks ?? 'unknown'],
      ['GPUs', rep.gpus.length ? rep.gpus.join(', ') : 'unknown'], ['complete rows', String(rep.rows.length)]];
    const rows = [...head.map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', {}, String(v)))),
      ...Object.entries(r.values).map(([k, v]) => h('tr', { 'data-key': k }, h('th', { scope: 'row' }, v.label), h('td', {}, v.text)))];
    this.results.replaceChildren(h('tbody', {}, rows));
    this.notes.replaceChildren(...(r.notes || []).map((n) => h('li', {}, n)));
    const list = this.skipped.querySelector('ul');
    list.replaceChildren(...rep.skipped.map((s) => h('li', {}, `line ${s.line}: ${s.reason}`)));
    this.skipped.hidden = rep.skipped.length === 0;
    this.draw(r.plot);
  }

  draw(p) {
    const xs = p.measured.map((q) => q[0]);
    const series = [{ label: 'measured (out-of-place)', ys: p.measured.map((q) => q[1]), points: true, stroke: '#c2410c' }];
    if (p.fit.length) series.push({ label: 'fit: latency + size / bandwidth', ys: p.fit.map((q) => q[1]), stroke: '#1f5fbf' });
    if (p.chapter.length) series.push({ label: "the chapter's formula at the line rate", ys: p.chapter.map((q) => q[1]), stroke: '#15803d', dash: [6, 4] });
    const opts = { xs, series, xLabel: 'size', yLabel: 'time', xUnit: 'B', yUnit: 's', height: 320 };
    if (this.plot) this.plot.update(opts);
    else this.plot = logLogPlot(this.plotEl, opts);
  }
}
if (!customElements.get('sb-nccl-fit')) customElements.define('sb-nccl-fit', SbNcclFit);
