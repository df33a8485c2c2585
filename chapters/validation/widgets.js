// The validation page's widget: the published runs (data/validation/published.json) sent to
// validation.runs (in the page's worker), the factors a reader may change, the scatter of
// expected against measured, the table of runs with links that open each configuration in the
// planner or the inference calculator. Every number comes from the module.
import '../lib/page.js';
import { compute, h, logLogPlot, fmtNumber, fmtQuantity, loadUnits, ensureWidgetStyles, widgetTurn } from '../lib/widgets.js';

const FACTORS = [
  ['mxu_tpu', 'TPU matmuls, share of the bf16 peak'],
  ['mxu_gpu', 'GPU matmuls, share of the bf16 peak'],
  ['mxu_fp8', 'FP8 and FP4 matmuls, share of their peak'],
  ['link', 'Collectives, share of the line rate'],
  ['hbm', 'HBM streams, share of the bandwidth'],
  ['moe', 'MoE expert matmuls, share of the dense rate'],
  ['vector', 'Decode attention on CUDA cores, share of their rate'],
];
// The dtypes the inference step calculator offers (inference.step's dtype_w, dtype_kv, dtype_matmul).
const STEP_DTYPES = ['bf16', 'fp8', 'int8', 'int4'];
const KERNELS = { unfused: 'attention unfused (scores through HBM)', cuda_cores: 'decode attention on CUDA cores' };
const GROUPS = [
  ['TPU', 'training', 'TPU training', '#1f5fbf', 11],
  ['TPU', 'inference', 'TPU inference', '#0e7490', 7],
  ['GPU', 'training', 'GPU training', '#15803d', 11],
  ['GPU', 'inference', 'GPU inference', '#b45309', 7],
];

const pct = (x) => (x == null ? '—' : `${x > 0 ? '+' : ''}${fmtNumber(100 * x, 3)}%`);
const fig = (v, unit) => (v == null ? '—' : unit === 's' ? fmtQuantity(v, 's') : fmtNumber(v, 4));

// A link that opens the run's configuration in the chapter that runs it (URL state, as every page
// keeps it): the planner for training, the decode step calculator for inference.
function openLink(run) {
  const c = run.config;
  const q = new URLSearchParams({ chip: c.chip });
  // A model of the table is the page's model; a custom one is the widget's own, with its sizes.
  const model = (w) => {
    if (!c.sizes) return q.set('model', c.model);
    q.set(`${w}.model`, 'custom');
    for (const [k, v] of Object.entries(c.sizes)) q.set(`${w}.${k}`, String(v));
  };
  if (run.kind === 'training') {
    model('training.plan');
    // The planner plans one pod (its chips are per pod), with the whole batch.
    q.set('training.plan.chips', String(c.pod_chips));
    q.set('training.plan.B', String(c.sequences * c.seq_len));
    q.set('training.plan.seq_len', String(c.seq_len));
    return h('a', { href: `training.html?${q}#plan` }, c.pods > 1 ? `open one of its ${c.pods} pods in the planner` : 'open in the planner');
  }
  model('step-calc');
  // The run's replica as the step calculator takes it: the batch at the context its decode steps
  // hold midway (as validation.runs costs them), and the dtypes the calculator offers.
  q.set('step-calc.chips', String(c.replica_chips));
  q.set('step-calc.B', String(c.replica_batch));
  q.set('step-calc.prompt', String(c.prompt));
  q.set('step-calc.S', String(c.step_context));
  if (c.output > 0) q.set('step-calc.len_decode', String(c.output));
  for (const [key, dtype] of [['dtype_w', c.weights], ['dtype_kv', c.kv], ['dtype_matmul', c.compute]])
    if (STEP_DTYPES.includes(dtype)) q.set(`step-calc.${key}`, dtype);
  return h('a', { href: `inference.html?${q}#step-calc` }, 'open in the step calculator');
}

function configText(run) {
  const c = run.config;
  const deg = ['data', 'fsdp', 'tensor', 'pipeline', 'expert', 'context']
    .filter((k) => c[k] > 1).map((k) => `${k} ${c[k]}`).join(', ');
  const work = run.kind === 'training'
    ? `${c.sequences} × ${c.seq_len} tokens, remat ${c.remat.replace('_', ' ')}`
    : `${c.phase}, batch ${c.batch}, ${c.prompt} in / ${c.output} out`;
  const kernel = KERNELS[c.attention_kernel] ? `; ${KERNELS[c.attention_kernel]}` : '';
  return `${run.model} on ${c.chips} ${run.chip}; ${deg || 'one chip'}; ${work}; ${c.compute}${kernel}`;
}

class SbValidation extends HTMLElement {
  async connectedCallback() {
    if (this.started) return;
    this.started = true;
    ensureWidgetStyles();
    this.setAttribute('aria-busy', 'true');  // until the first answer: the runs, the module, the worker
    await widgetTurn();
    this.inputs = {};
    const form = h('form', { class: 'sb-factors' }, h('h3', {}, 'Efficiency factors'),
      ...FACTORS.map(([k, label]) => {
        const id = `factor-${k}`;
        this.inputs[k] = h('input', { id, type: 'number', min: '0.01', max: '1', step: '0.01' });
        this.inputs[k].addEventListener('change', () => this.run('no'));
        return h('div', { class: 'sb-factor' }, h('label', { for: id }, label), this.inputs[k]);
      }),
      h('button', { type: 'button', class: 'sb-button' }, 'Fit to the runs'));
    form.querySelector('button').addEventListener('click', () => this.run('yes'));
    this.summary = h('p', { class: 'sb-summary', 'aria-live': 'polite' }, 'Computing the runs…');
    this.plot = h('div', { class: 'sb-plot' });
    this.table = h('div', { class: 'sb-table-wrap' });
    this.replaceChildren(form, this.summary, this.plot, this.table);
    try {
      const res = await fetch(new URL('../data/validation/published.json', import.meta.url));
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      this.text = await res.text();
      await loadUnits();  // memory in GB, times in ms, as the core writes them
    } catch (e) {
      this.removeAttribute('aria-busy');
      this.summary.textContent = `The published runs did not load: ${e.message}`;
      return;
    }
    await this.run('no', true);
  }

  async run(fit, first = false) {
    this.setAttribute('aria-busy', 'true');
    const inputs = { scenarios: this.text, fit };
    if (!first) for (const [k] of FACTORS) inputs[k] = Number(this.inputs[k].value);
    const r = await compute('validation.runs', inputs);
    this.removeAttribute('aria-busy');
    if (!r.ok) {
      this.summary.textContent = `Error in ${r.error.field}: ${r.error.message}`;
      return;
    }
    // The factors the module used, written back only when it chose them (the defaults, a fit): a
    // reader's typing in the next field is not overwritten by the answer to the last one.
    if (first || fit === 'yes') for (const [k] of FACTORS) this.inputs[k].value = String(r.factors[k]);
    const s = r.summary;
    this.summary.textContent = `Expected against measured, ${r.runs.length} runs: median error ` +
      `${fmtNumber(100 * s.median, 3)}%, worst ${fmtNumber(100 * s.worst, 3)}% (${s.worst_id}).`;
    this.draw(r.runs);
    this.fill(r.runs);
  }

  draw(runs) {
    const pts = runs.filter((x) => x.measured != null).sort((a, b) => a.expected.primary - b.expected.primary);
    const xs = pts.map((x) => x.expected.primary);
    const series = GROUPS.map(([fam, kind, label, stroke, size]) => ({
      label, stroke, size, points: true,
      ys: pts.map((x) => (x.family === fam && x.kind === kind ? x.measured : null)),
    }));
    series.push({ label: 'measured = expected', ys: xs, stroke: '#6b7280', dash: [4, 4] });
    const opts = { xLabel: 'expected (each run in its own unit)', yLabel: 'measured', xs, series };
    if (this.chart) this.chart.update(opts);
    else this.chart = logLogPlot(this.plot, opts);
  }

  fill(runs) {
    const head = ['Run', 'Configuration', 'Bound', 'Expected', 'Measured', 'Error', 'Memory per chip', ''];
    const rows = runs.map((x) => h('tr', {},
      h('th', { scope: 'row' }, x.url ? h('a', { href: x.url, title: x.source }, x.id) : x.id),
      h('td', {}, configText(x), ...(x.notes.length ? [h('details', {}, h('summary', {}, 'notes'),
        h('ul', {}, ...x.notes.map((n) => h('li', {}, n)), ...x.overridden.map((o) => h('li', {}, `chip figure overridden: ${o}`))))] : [])),
      h('td', {}, fig(x.bound.primary, x.unit)),
      h('td', {}, fig(x.expected.primary, x.unit)),
      h('td', {}, `${fig(x.measured, x.unit)}${x.above_bound ? ' (above the bound: see notes)' : ''}`),
      h('td', {}, pct(x.error)),
      h('td', {}, `${fmtQuantity(x.mem_bytes, 'B')}${x.fits ? '' : ' (does not fit)'}`),
      h('td', {}, openLink(x))));
    this.table.replaceChildren(h('table', { class: 'sb-results sb-runs' },
      h('caption', {}, 'Per run, the figure its source reports: tokens/s per chip, a step or a latency in seconds, or output tokens/s per chip.'),
      h('thead', {}, h('tr', {}, ...head.map((t) => h('th', { scope: 'col' }, t)))),
      h('tbody', {}, ...rows)));
  }
}
customElements.define('sb-validation', SbValidation);
