// Chapter widgets of the inference page (its content: chapters/inference/page.html); the site serves
// this file as widgets/inference.js. The page shell (exercises, the page's chip) comes from
// lib/page.js. Every number shown is the module's (inference.step, .frontier, .plan, .sharding,
// .moe, .engine): this file only lays them out.
//
// - inference.step: the step's three terms as bars with their shares, the HBM as weights, caches
//   and what is left, and the critical batch of each weight dtype;
// - <sb-inference-frontier>: a context slider over inference.frontier and its points on a log-log
//   plot (uPlot), one series per dtype set and the Pareto front; hovering a point, or picking one
//   of the front in the list below, shows its configuration;
// - inference.plan: the options table, best first, each with why it loses;
// - inference.moe: the mesh the layout makes.
import '../lib/page.js';
import { SbCalc, logLogPlot, fmtQuantity, fmtNumber, h } from '../lib/widgets.js';

const STYLE = `
.sb-inf-beyond { border-left: 4px solid #b45309; background: #fff8ed; padding: 0.5rem 0.8rem; border-radius: 4px; }
.sb-inf-bars { margin: 0.4rem 0 0.8rem; }
.sb-inf-bar-row { display: grid; grid-template-columns: minmax(7rem, 10rem) 1fr minmax(6rem, 8rem); gap: 0.5rem; align-items: center; margin: 0.2rem 0; font-size: 0.85rem; }
.sb-inf-track { position: relative; height: 1rem; background: #f1f4f8; border-radius: 3px; }
.sb-inf-fill { position: absolute; left: 0; top: 0; bottom: 0; border-radius: 3px; }
.sb-inf-value { font-variant-numeric: tabular-nums; text-align: right; }
.sb-inf-stack { display: flex; height: 1.3rem; border-radius: 4px; overflow: hidden; background: #f1f4f8; margin: 0.3rem 0; }
.sb-inf-stack > span { display: block; height: 100%; }
.sb-inf-legend { display: flex; flex-wrap: wrap; gap: 0.8rem; font-size: 0.8rem; color: #4b5563; }
.sb-inf-swatch { display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 2px; vertical-align: -0.1rem; margin-right: 0.3rem; }
.sb-inf-table { border-collapse: collapse; font-size: 0.84rem; min-width: 100%; }
.sb-inf-table th, .sb-inf-table td { padding: 0.25rem 0.5rem; border-bottom: 1px solid #dde2e8; text-align: left; vertical-align: top; }
.sb-inf-table td { font-variant-numeric: tabular-nums; }
.sb-inf-table tr.sb-inf-best td { background: #eef7ee; font-weight: 600; }
.sb-inf-table tr.sb-inf-miss td { color: #6b7280; }
.sb-inf-slider { display: flex; flex-wrap: wrap; align-items: center; gap: 0.6rem; margin: 0.3rem 0 0.6rem; }
.sb-inf-slider input[type=range] { flex: 1 1 12rem; max-width: 28rem; }
.sb-inf-hover { min-height: 2.6em; font-size: 0.88rem; margin: 0.3rem 0; }
.sb-inf-front { display: flex; flex-wrap: wrap; gap: 0.3rem; margin: 0.3rem 0; }
.sb-inf-front button { font: inherit; font-size: 0.8rem; padding: 0.15rem 0.45rem; border: 1px solid #b8c1cc; border-radius: 4px; background: #fff; cursor: pointer; }
.sb-inf-front button[aria-pressed="true"] { background: #1f5fbf; color: #fff; border-color: #1f5fbf; }
.sb-inf-mesh { font-family: ui-monospace, monospace; font-size: 0.82rem; background: #f6f8fa; padding: 0.5rem 0.7rem; border-radius: 4px; white-space: pre-wrap; overflow-wrap: anywhere; }
`;
document.head.append(h('style', { id: 'sb-inf-style' }, STYLE));

const TERMS = [
  { key: 'T_kv', label: 'KV-cache loading', color: '#7e22ce' },
  { key: 'T_param', label: 'weight loading', color: '#1f5fbf' },
  { key: 'T_flops', label: 'FLOPs', color: '#15803d' },
];
const pct = (x) => `${fmtNumber(100 * x, 3)}%`;

function barRow(label, value, max, color, text) {
  const fill = h('span', { class: 'sb-inf-fill' });
  fill.style.width = `${Math.max(0.5, (100 * value) / max)}%`;
  fill.style.background = color;
  return h('div', { class: 'sb-inf-bar-row' }, h('span', {}, label), h('span', { class: 'sb-inf-track' }, fill),
    h('span', { class: 'sb-inf-value' }, text));
}

function swatch(color) {
  const s = h('span', { class: 'sb-inf-swatch' });
  s.style.background = color;
  return s;
}

// ---------------------------------------------------------------- inference.step

function drawStep(r, extra) {
  const b = r.bars;
  const terms = h('div', { class: 'sb-inf-bars', 'data-part': 'terms' },
    h('h4', {}, `The step\u2019s terms (weight loading and FLOPs overlap: the larger counts${b.T_comms ? '; on GPUs the AllReduces add' : ''})`),
    TERMS.map((t) => barRow(t.label, b[t.key], b.T_step, t.color, `${fmtQuantity(b[t.key], 's')} (${pct(b[t.key] / b.T_step)})`)),
    b.T_comms ? barRow('AllReduces (GPUs)', b.T_comms, b.T_step, '#b45309', `${fmtQuantity(b.T_comms, 's')} (${pct(b.T_comms / b.T_step)})`) : null,
    barRow('the step', b.T_step, b.T_step, '#334155', fmtQuantity(b.T_step, 's')));
  const m = r.memory;
  const free = Math.max(0, m.hbm - m.weights - m.kv);
  const parts = [['weights', m.weights, '#1f5fbf'], ['KV caches', m.kv, '#7e22ce'], ['free', free, '#d1d5db']];
  const stack = h('div', { class: 'sb-inf-stack', role: 'img',
    'aria-label': `HBM of the slice: ${parts.map(([l, v]) => `${l} ${fmtQuantity(v, 'B')}`).join(', ')}` });
  for (const [, v, c] of parts) {
    const s = h('span');
    s.style.width = `${(100 * v) / m.hbm}%`;
    s.style.background = c;
    stack.append(s);
  }
  const mem = h('div', { class: 'sb-inf-bars', 'data-part': 'memory' },
    h('h4', {}, `HBM of the slice: ${fmtQuantity(m.hbm, 'B')}`), stack,
    h('div', { class: 'sb-inf-legend' }, parts.map(([l, v, c]) => h('span', {}, swatch(c), `${l} ${fmtQuantity(v, 'B')}`))));
  const quant = h('table', { class: 'sb-inf-table', 'data-part': 'quantization' },
    h('caption', {}, 'Critical batch by weight dtype, at this matmul precision'),
    h('thead', {}, h('tr', {}, h('th', {}, 'weights'), h('th', {}, 'critical batch'))),
    h('tbody', {}, r.quantization.map((q) => h('tr', {}, h('td', {}, q.dtype_w), h('td', {}, fmtQuantity(q.b_crit, 'tokens'))))));
  extra.replaceChildren(terms, mem, h('div', { class: 'sb-table-scroll' }, quant));
}
SbCalc.addRenderer('inference.step', drawStep);

// ---------------------------------------------------------------- the frontier

const DTYPE_COLORS = ['#1f5fbf', '#15803d', '#0e7490', '#b45309', '#7e22ce'];
// Context lengths of the slider: 2k to 128k tokens by factors of two.
const CONTEXTS = [2048, 4096, 8192, 16384, 32768, 65536, 131072];

function describe(p) {
  return `${p.dtype} on a ${p.shape} (${fmtNumber(p.chips, 5)} chips), batch ${fmtNumber(p.B, 6)} of at most ` +
    `${fmtNumber(p.B_max, 6)}: ${fmtQuantity(p.latency, 's')} per token, ${fmtQuantity(p.tok_s_chip, 'tokens_per_s')} per chip` +
    `${p.cost > 0 ? `, $${fmtNumber(p.cost, 3)} per million tokens` : ''}; KV loading ${pct(p.share_kv)} of the step` +
    `${p.full ? '; the batch fills HBM' : ''}${p.pareto ? ' (on the front)' : ''}`;
}

function frontierSeries(r) {
  const pts = r.points;
  const xs = pts.map((p) => p.latency);
  const sets = [...new Set(pts.map((p) => p.dtype))];
  const series = sets.map((d, i) => ({
    label: d, points: true, size: 5, stroke: DTYPE_COLORS[i % DTYPE_COLORS.length],
    ys: pts.map((p) => (p.dtype === d ? p.tok_s_chip : null)),
  }));
  series.push({ label: 'Pareto front', stroke: '#111827', width: 2, ys: pts.map((p) => (p.pareto ? p.tok_s_chip : null)) });
  return { xs, series, xLabel: 'time per output token', yLabel: 'tokens per second per chip', xUnit: 's', yUnit: 'tokens_per_s', height: 360 };
}

function drawFrontier(r, extra, calc) {
  let v = calc.frontierView;
  if (!v) {
    const box = h('div', { class: 'sb-inf-plot', role: 'img' });
    const hover = h('p', { class: 'sb-inf-hover', 'aria-live': 'polite' });
    const front = h('div', { class: 'sb-inf-front', role: 'group', 'aria-label': 'points on the Pareto front' });
    extra.append(box, hover, h('p', { class: 'sb-muted sb-small' }, 'The front, fastest first:'), front);
    v = calc.frontierView = { box, hover, front, plot: logLogPlot(box, frontierSeries(r)), r };
    box.addEventListener('mousemove', () => {
      const i = v.plot.uplot?.cursor.idx;
      if (i != null && v.r.points[i]) v.hover.textContent = describe(v.r.points[i]);
    });
  } else {
    v.plot.update(frontierSeries(r));
  }
  v.r = r;
  v.box.setAttribute('aria-label', `Latency-throughput frontier: ${r.points.length} configurations, ${r.values.front.value} on the Pareto front`);
  v.hover.textContent = 'Hover a point for its configuration.';
  const front = r.points.filter((p) => p.pareto);
  v.front.replaceChildren(...front.map((p) => h('button', {
    type: 'button', 'aria-pressed': 'false', title: describe(p),
    onclick: (e) => {
      for (const b of v.front.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b === e.currentTarget));
      v.hover.textContent = describe(p);
    },
  }, `${fmtQuantity(p.latency, 's', 2)}: ${p.dtype_w}, ${p.shape}, B ${fmtNumber(p.B, 5)}`)));
}
SbCalc.addRenderer('inference.frontier', drawFrontier);

class SbInferenceFrontier extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    const slider = h('input', { type: 'range', min: 0, max: CONTEXTS.length - 1, step: 1, value: 2, name: 'context-slider',
      'aria-label': 'context length' });
    const out = h('output', {});
    const calc = h('sb-calc', { name: 'inference.frontier' });
    const show = (S) => {
      out.textContent = `${fmtNumber(S, 6)} tokens`;
      slider.setAttribute('aria-valuetext', `${fmtNumber(S, 6)} tokens`);
    };
    slider.addEventListener('input', () => {
      const S = CONTEXTS[Number(slider.value)];
      show(S);
      calc.setInputs({ S: String(S) });
    });
    calc.addEventListener('sb-result', (e) => {
      const r = e.detail.response;
      if (!r.ok) return;
      const i = CONTEXTS.indexOf(r.inputs.S);
      if (i >= 0) slider.value = i;
      show(r.inputs.S);
    });
    this.replaceChildren(
      h('div', { class: 'sb-inf-slider' }, h('label', { for: 'sb-inf-context' }, 'context'), slider, out),
      calc);
    slider.id = 'sb-inf-context';
  }
}

// ---------------------------------------------------------------- the planner

function drawPlan(r, extra) {
  const money = r.options.some((o) => o.cost_per_m > 0);
  const head = ['dtypes', 'slice', 'batch', 'per token', 'first token', 'replicas + prefill', money ? '$ per M tokens' : 'chip-hours per M tokens', 'why'];
  const rows = r.options.map((o) => h('tr', { class: o.best ? 'sb-inf-best' : (o.meets ? '' : 'sb-inf-miss'), 'data-meets': String(o.meets) },
    h('td', {}, o.dtype), h('td', {}, `${o.shape} (${fmtNumber(o.chips, 5)})`),
    h('td', {}, o.fits ? `${fmtNumber(o.B, 6)} of ${fmtNumber(o.B_max, 6)}` : '\u2014'),
    h('td', {}, o.fits ? fmtQuantity(o.tpot, 's') : '\u2014'), h('td', {}, o.fits ? fmtQuantity(o.ttft, 's') : '\u2014'),
    h('td', {}, o.meets ? `${fmtNumber(o.replicas, 6)} + ${fmtNumber(o.prefill_servers, 6)}` : '\u2014'),
    h('td', {}, o.meets ? (money ? `$${fmtNumber(o.cost_per_m, 3)}` : fmtNumber(o.chip_hours_per_m, 3)) : '\u2014'),
    h('td', { class: 'sb-inf-why' }, o.why)));
  extra.replaceChildren(h('div', { class: 'sb-table-scroll' }, h('table', { class: 'sb-inf-table sb-inf-options' },
    h('thead', {}, h('tr', {}, head.map((t) => h('th', {}, t)))), h('tbody', {}, rows))));
}
SbCalc.addRenderer('inference.plan', drawPlan);

// ---------------------------------------------------------------- MoE

function drawMoe(r, extra) {
  extra.replaceChildren(h('h4', {}, 'The mesh (beyond the book)'), h('div', { class: 'sb-inf-mesh' }, r.mesh.lines.join('\n')));
}
SbCalc.addRenderer('inference.moe', drawMoe);

if (!customElements.get('sb-inference-frontier')) customElements.define('sb-inference-frontier', SbInferenceFrontier);
