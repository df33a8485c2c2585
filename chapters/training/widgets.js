// Chapter widgets of the training page (its content: chapters/training/page.html); the site serves
// this file as widgets/training.js. The page shell (exercises, other calculators) comes from
// lib/page.js. Every number shown is the module's (training.plan, training.regime,
// training.strategy, training.split): this file only lays them out.
//
// <sb-training-planner>: the planner (training.plan) with two sliders, global batch and chip count,
// that re-run the whole search as they move; the best plan's memory per chip and step timeline,
// and the plan table that says why each strategy loses.
// <sb-plan-versus>: training.versus, the planner's best plan on a GPU cluster and on a TPU slice of
// as many chips, side by side.
// <sb-regime-map>: training.regime drawn as the chapter's map: chips against batch per chip,
// coloured by the simplest strategy that is compute-bound and fits, as the planner costs it.
// <sb-training-strategy>: training.strategy with its collectives, the compute against comms bars per
// phase, the compute-bound conditions and the six strategies side by side.
// <sb-fsdp-tp-split>: training.split with the FSDP and TP comm terms against X (log-log).
import '../lib/page.js';
import { SbCalc, logLogPlot, fmtQuantity, fmtNumber, h } from '../lib/widgets.js';

const SVG = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

const pct = (x) => `${fmtNumber(100 * x, 3)}%`;
const yesNo = (b) => (b ? 'yes' : 'no');

// ---------------------------------------------------------------- memory and timeline

const MEMORY_PARTS = [['weights', 'weights', '#1f5fbf'], ['grads', 'gradient buffers', '#0e7490'],
  ['optimizer', 'Adam state', '#7e22ce'], ['activations', 'activations', '#b45309']];

// Memory per chip by what it holds, against the chip's HBM (a marker at the HBM line).
function memoryBar(m) {
  const scale = Math.max(m.total, m.hbm);
  const track = h('span', { class: 'sb-train-bar-track sb-train-memory-track' });
  track.style.display = 'flex';
  track.style.position = 'relative';
  track.style.height = '1.1rem';
  for (const [key, , color] of MEMORY_PARTS) {
    if (!(m[key] > 0)) continue;
    const seg = h('span', { 'data-part': key });
    seg.style.width = `${100 * m[key] / scale}%`;
    seg.style.background = color;
    track.append(seg);
  }
  const line = h('span', { class: 'sb-train-hbm-line', title: `HBM ${fmtQuantity(m.hbm, 'B')}` });
  Object.assign(line.style, { position: 'absolute', top: '-3px', bottom: '-3px', width: '2px', background: '#111827', left: `calc(${100 * m.hbm / scale}% - 1px)` });
  track.append(line);
  const legend = h('ul', { class: 'sb-train-legend' }, MEMORY_PARTS.filter(([k]) => m[k] > 0).map(([k, label, color]) => {
    const sw = h('span', { class: 'sb-train-swatch' });
    sw.style.background = color;
    return h('li', { 'data-part': k }, sw, `${label} ${fmtQuantity(m[k], 'B')}`);
  }));
  const fits = m.total <= m.hbm;
  return h('div', { class: 'sb-train-memory', role: 'group', 'aria-label': 'memory per chip' },
    h('div', { class: 'sb-train-bars-head' }, 'Memory per chip: ', h('strong', { class: fits ? '' : 'sb-train-bad' },
      `${fmtQuantity(m.total, 'B')} of ${fmtQuantity(m.hbm, 'B')} HBM`), fits ? '' : ' (does not fit)'),
    track, legend);
}

const LANES = [['compute', 'compute (forward and backward)'], ['hbm', 'weight loads from HBM'], ['fsdp', 'FSDP gathers and reduce-scatters'],
  ['tp', 'TP gathers and reduce-scatters'], ['ep', 'expert all-to-alls'], ['dp', 'DP gradient all-reduce'], ['dcn', 'all-reduce across pods (DCN)'],
  ['hop', 'copies between pipeline stages'], ['bubble', 'pipeline bubble (idle)']];

// The step's timeline: how long each term keeps its resource busy over one step, against the step.
function timelineBars(t) {
  const rows = LANES.filter(([k]) => t[k] > 0).map(([k, label]) => {
    const bar = h('span', { class: `sb-train-bar sb-train-bar-${k === 'compute' ? 'math' : k}` });
    bar.style.width = `${Math.max(0.5, Math.min(100, 100 * t[k] / t.step))}%`;
    if (k === 'bubble') bar.style.background = '#cbd5e1';
    return h('div', { class: 'sb-train-bar-row', 'data-lane': k }, h('span', { class: 'sb-train-bar-label' }, label),
      h('span', { class: 'sb-train-bar-track' }, bar), h('span', { class: 'sb-train-bar-value' }, fmtQuantity(t[k], 's')));
  });
  return h('div', { class: 'sb-train-timeline', role: 'group', 'aria-label': 'timeline of one step' },
    h('div', { class: 'sb-train-bars-head' }, 'One step: ', h('strong', {}, fmtQuantity(t.step, 's'))),
    rows,
    h('p', { class: 'sb-muted sb-small' }, `Each bar is the time its term keeps the chip (or its links) busy in one step. They overlap: ` +
      `${fmtQuantity(t.overlap, 's')} of them run while something else does, which is what keeps the step at its longest term.`));
}

// ---------------------------------------------------------------- the planner

function layoutText(p) {
  const parts = [`X ${p.X}`, `Y ${p.Y}`];
  if (p.Z > 1) parts.push(`Z ${p.Z}`, `${p.m} microbatches`);
  return parts.join(' · ');
}

function axesText(p) {
  const parts = [`X = ${p.x}`, `Y = ${p.y}`];
  if (p.Z > 1) parts.push(`Z = ${p.z}`);
  return `${p.slice}: ${parts.join(', ')}`;
}

function drawPlan(r, extra) {
  const rows = r.plans.map((p) => h('tr', { class: p.reason === 'best' ? 'sb-train-best' : '', 'data-reason': p.reason, 'data-strategy': p.strategy },
    h('td', {}, h('strong', {}, p.strategy)),
    h('td', {}, layoutText(p), h('div', { class: 'sb-muted sb-small' }, `${axesText(p)}; M_X ${fmtNumber(p.M_X, 3)}, M_Y ${fmtNumber(p.M_Y, 3)}; ${p.remat}`)),
    h('td', { class: p.fits ? '' : 'sb-train-bad' }, fmtQuantity(p.mem, 'B'), p.fits ? '' : ' (does not fit)'),
    h('td', {}, fmtQuantity(p.t_step, 's')),
    h('td', {}, pct(p.mfu)),
    h('td', {}, p.compute_bound ? 'compute' : p.bottleneck),
    h('td', { class: 'sb-train-why' }, p.reason === 'best' ? 'the best plan' : p.why)));
  const banner = r.fits ? null
    : h('p', { class: 'sb-train-nowhere', role: 'status' }, 'Fits nowhere: no layout of this model fits in these chips\u2019 HBM. The table shows the least memory each strategy needs.');
  const b = r.best;
  // What the bound on the search's work changed, if anything (the search's size is the planner's
  // own line, above).
  const searched = r.searched.text ? h('p', { class: 'sb-muted sb-small sb-train-searched' }, r.searched.text) : null;
  extra.replaceChildren(...[banner,
    h('h4', {}, `The best plan: ${b.strategy}, ${layoutText(b)} (${b.remat})`),
    h('div', { class: 'sb-train-phases' }, memoryBar(b.memory), timelineBars(b.timeline)),
    searched,
    h('div', { class: 'sb-table-scroll' }, h('table', { class: 'sb-train-table sb-train-plans' },
      h('thead', {}, h('tr', {}, ['strategy', 'layout', 'memory per chip', 'step-time bound', 'MFU bound', 'bound by', 'why not'].map((t) => h('th', {}, t)))),
      h('tbody', {}, rows)))].filter(Boolean));
}
SbCalc.addRenderer('training.plan', drawPlan);

// Log-scale slider positions for the global batch: 2^14 to 2^27 tokens in quarter octaves.
const B_MIN = 14, B_MAX = 27, B_STEP = 0.25;
const batchAt = (pos) => Math.round(2 ** pos);
const posOfBatch = (B) => Math.min(B_MAX, Math.max(B_MIN, Math.round(Math.log2(B) / B_STEP) * B_STEP));

class SbTrainingPlanner extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    this.counts = [];
    const batch = h('input', { type: 'range', min: B_MIN, max: B_MAX, step: B_STEP, value: 22, name: 'batch-slider', 'aria-label': 'global batch (tokens)' });
    const chips = h('input', { type: 'range', min: 0, max: 0, step: 1, value: 0, name: 'chips-slider', 'aria-label': 'chips' });
    this.batchOut = h('output', { class: 'sb-train-out' });
    this.chipsOut = h('output', { class: 'sb-train-out' });
    this.timing = h('p', { class: 'sb-muted sb-small sb-train-timing', 'aria-live': 'polite' });
    const calc = h('sb-calc', { name: 'training.plan' });
    this.calc = calc;
    batch.addEventListener('input', () => this.move({ B: String(batchAt(Number(batch.value))) }));
    chips.addEventListener('input', () => {
      const n = this.counts[Number(chips.value)];
      if (n) this.move({ chips: String(n), shape: '' });
    });
    calc.addEventListener('sb-result', (e) => {
      const r = e.detail.response;
      // The search's size with every answer (it runs in a worker: lib/calc.js), never a stale one.
      this.timing.textContent = r.ok && r.values.configs ? `Searched ${fmtNumber(r.values.configs.value, 6)} configurations.` : '';
      if (!r.ok) return;
      this.counts = r.chip_counts || [];
      const n = r.values.chips.value;
      chips.max = Math.max(0, this.counts.length - 1);
      const i = this.counts.indexOf(n);
      if (i >= 0) chips.value = i;
      batch.value = posOfBatch(r.inputs.B);
      this.batchOut.textContent = fmtQuantity(r.inputs.B, 'tokens');
      this.chipsOut.textContent = `${fmtNumber(n, 6)} chips`;
      // A screen reader hears the value, not the slider's index.
      batch.setAttribute('aria-valuetext', this.batchOut.textContent);
      chips.setAttribute('aria-valuetext', this.chipsOut.textContent);
    });
    this.replaceChildren(
      h('p', {}, 'Pick a model and a chip (a TPU, or a GPU: its NVLink nodes are the fast axis and the fat tree above them the slow one); ' +
        'move the global batch and the chip count. Every move runs the whole search: every way to split the ' +
        'slice\u2019s (or the cluster\u2019s) axes into data (DP or FSDP), tensor, pipeline and, for a mixture of experts, expert parallelism, with each ' +
        'rematerialisation policy and microbatch count. The best plan shows its memory per chip and its step; the table keeps the best ' +
        'plan of each strategy and says why it loses to the best.'),
      h('div', { class: 'sb-train-sliders' },
        h('label', {}, h('span', {}, 'global batch'), batch, this.batchOut),
        h('label', {}, h('span', {}, 'chips'), chips, this.chipsOut)),
      this.timing,
      calc);
  }

  // A slider moved: set the inputs; the calculator recomputes (off the main thread).
  move(inputs) {
    this.calc.setInputs(inputs);
  }
}

// ---------------------------------------------------------------- a GPU cluster beside a TPU slice

// training.versus: the planner's best plan on the GPUs and on the TPU slice, one column each.
function drawVersus(r, extra) {
  const [a, b] = r.columns;
  const row = (label, f) => h('tr', {}, h('th', { scope: 'row' }, label), h('td', {}, f(a)), h('td', {}, f(b)));
  const mem = (c) => h('span', { class: c.best.fits ? '' : 'sb-train-bad' },
    `${fmtQuantity(c.best.mem, 'B')} of ${fmtQuantity(c.hbm, 'B')}`, c.best.fits ? '' : ' (does not fit)');
  const table = h('table', { class: 'sb-train-table sb-train-versus' },
    h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', { scope: 'col' }, a.name), h('th', { scope: 'col' }, b.name))),
    h('tbody', {},
      row('machine', (c) => `${fmtNumber(c.chips, 6)} chips: ${c.kind === 'gpu' ? c.where : `slice ${c.where}`}`),
      row('best strategy', (c) => h('strong', {}, c.best.strategy)),
      row('layout', (c) => h('span', {}, layoutText(c.best), h('div', { class: 'sb-muted sb-small' }, axesText(c.best)))),
      row('memory per chip (of HBM)', mem),
      row('step-time bound', (c) => fmtQuantity(c.best.t_step, 's')),
      row('MFU bound', (c) => pct(c.best.mfu)),
      row('bound by', (c) => (c.best.compute_bound ? 'compute' : c.best.bottleneck)),
      row('remat', (c) => c.best.remat)));
  extra.replaceChildren(h('div', { class: 'sb-table-scroll' }, table),
    h('p', { class: 'sb-train-versus-ratio' }, `The ${a.name} cluster’s step takes ${fmtNumber(r.values.step_ratio.value, 3)} times as long as the ${b.name} slice’s.`));
}
SbCalc.addRenderer('training.versus', drawVersus);

class SbPlanVersus extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    this.replaceChildren(
      h('p', {}, 'The same planner on the same number of chips, two machines: GPUs in NVLink nodes under a fat tree (TP stays inside a ' +
        'node, the data axis crosses the nodes over their network cards) and a TPU slice’s ICI torus. The page’s chip is one column; ' +
        'the other is a TPU v5p beside a GPU, an NVIDIA H100 beside a TPU.'),
      h('sb-calc', { name: 'training.versus' }));
  }
}

// ---------------------------------------------------------------- the regime map

const REGIMES = [
  { key: 'DP', label: 'DP compute-bound and fits', color: '#5fb572' },
  { key: 'FSDP', label: 'FSDP (not DP)', color: '#5b8fd9' },
  { key: 'FSDP+TP', label: 'FSDP + TP (DP and FSDP comms-bound)', color: '#9a6fd0' },
  { key: 'TP', label: 'TP only', color: '#3aa7b5' },
  { key: 'EP', label: 'only with expert parallelism (a mixture of experts)', color: '#d6a21e' },
  { key: 'none', label: 'comms-bound or out of memory', color: '#e3e6ea' },
  { key: 'DCN', label: 'several pods: DCN too slow', color: '#e8a25c' },
];

// The simplest compute-bound strategy of a cell, the chapter's order of preference.
function regimeOf(bits, b) {
  if (bits & b.multi_pod && !(bits & b.DCN)) return REGIMES[6];
  if (bits & b.DP) return REGIMES[0];
  if (bits & b.FSDP) return REGIMES[1];
  if (bits & b['FSDP+TP']) return REGIMES[2];
  if (bits & b.TP) return REGIMES[3];
  if (bits & b.EP) return REGIMES[4];
  return REGIMES[5];
}

function cellText(bits, b, chips, per) {
  const ok = ['DP', 'FSDP', 'TP', 'FSDP+TP', 'EP'].filter((k) => bits & b[k]).map((k) => (k === 'EP' ? 'expert parallelism' : k));
  const pods = bits & b.multi_pod ? ((bits & b.DCN) ? '; DCN keeps up across pods' : '; DCN too slow across pods') : '';
  return `${fmtNumber(chips, 6)} chips, ${fmtNumber(per, 3)} tokens per chip: ${ok.length ? `compute-bound with ${ok.join(', ')}` : 'no strategy compute-bound and fitting'}${pods}`;
}

// A cell's details on hover, click or keyboard: the map takes focus, the arrow keys move a cursor
// over the cells, and the line under the map says what the cell holds. textOf(k): cell k's words.
function regimeDetail(svg, cols, textOf) {
  const line = h('p', { class: 'sb-small sb-train-cell', 'aria-live': 'polite' }, 'Point at a cell, or focus the map and use the arrow keys.');
  const rects = [...svg.querySelectorAll('rect[data-regime]')];
  let at = -1;
  const show = (k) => {
    rects[at]?.removeAttribute('stroke');
    at = Math.max(0, Math.min(rects.length - 1, k));
    rects[at].setAttribute('stroke', '#111827');
    rects[at].setAttribute('stroke-width', '2');
    line.textContent = textOf(at);
  };
  svg.setAttribute('tabindex', '0');
  for (const ev of ['click', 'mousemove']) svg.addEventListener(ev, (e) => { const k = rects.indexOf(e.target); if (k >= 0 && k !== at) show(k); });
  svg.addEventListener('keydown', (e) => {
    // rects run row by row from the bottom row (fewest chips) up; a step is one cell or one row.
    const step = { ArrowRight: 1, ArrowLeft: -1, ArrowUp: cols, ArrowDown: -cols }[e.key];
    if (step === undefined) return;
    e.preventDefault();
    show(at < 0 ? 0 : at + step);
  });
  return line;
}

function drawRegime(r, extra) {
  const m = r.map;
  const rows = m.chips.length, cols = m.batch_per_chip.length;
  const cw = 13, ch = 15, left = 78, top = 14, bottom = 48;
  const W = left + cols * cw + 20, H = top + rows * ch + bottom;
  const lx = (b) => left + (Math.log2(b / m.batch_per_chip[0]) / Math.log2(m.batch_per_chip[cols - 1] / m.batch_per_chip[0])) * (cols - 1) * cw + cw / 2;
  const ly = (n) => top + (rows - 1 - Math.log2(n / m.chips[0]) / Math.log2(m.chips[rows - 1] / m.chips[0]) * (rows - 1)) * ch + ch / 2;
  const svg = s('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: 'sb-train-map', role: 'img',
    'aria-label': `Regime map: ${rows} chip counts by ${cols} batches per chip` });
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const bits = m.cells[i * cols + j];
      const g = regimeOf(bits, m.bits);
      const rect = s('rect', { x: left + j * cw, y: top + (rows - 1 - i) * ch, width: cw, height: ch, fill: g.color, 'data-regime': g.key });
      svg.append(rect);
    }
  }
  // Axes: batch per chip across (every octave labelled every other), chips up (every other row).
  const text = (x, y, t, anchor = 'middle', extraAttrs = {}) => s('text', { x, y, 'text-anchor': anchor, 'font-size': 11, fill: '#334155', 'font-family': 'system-ui, sans-serif', ...extraAttrs }, t);
  for (let j = 0; j < cols; j += 8) svg.append(text(left + j * cw + cw / 2, top + rows * ch + 14, fmtNumber(m.batch_per_chip[j], 3)));
  svg.append(text(left + cols * cw / 2, top + rows * ch + 34, 'batch per chip (tokens, log scale)'));
  for (let i = 0; i < rows; i += 2) svg.append(text(left - 6, top + (rows - 1 - i) * ch + ch / 2 + 4, fmtNumber(m.chips[i], 4), 'end'));
  svg.append(text(12, top + rows * ch / 2, 'chips', 'middle', { transform: `rotate(-90 12 ${top + rows * ch / 2})` }));
  // The floors as dashed lines: FSDP's alpha / M_X and FSDP + TP's alpha^2 / (M_X M_Y F).
  for (const [key, label] of [['fsdp_floor', 'FSDP floor'], ['mixed_floor', 'FSDP + TP floor']]) {
    const v = r.values[key]?.value;
    if (!(v > m.batch_per_chip[0] && v < m.batch_per_chip[cols - 1])) continue;
    const x = lx(v);
    svg.append(s('line', { x1: x, x2: x, y1: top, y2: top + rows * ch, stroke: '#1f2937', 'stroke-dasharray': '4 3', 'stroke-width': 1.2, 'data-floor': key }));
    svg.append(text(x + 3, top + 10, `${label} ${fmtNumber(v, 3)}`, 'start', { 'font-size': 10 }));
  }
  // The reader's setup.
  const p = m.point;
  if (p.chips >= m.chips[0] && p.chips <= m.chips[rows - 1] && p.batch_per_chip >= m.batch_per_chip[0] && p.batch_per_chip <= m.batch_per_chip[cols - 1]) {
    const dot = s('circle', { cx: lx(p.batch_per_chip), cy: ly(p.chips), r: 6, fill: 'none', stroke: '#b91c1c', 'stroke-width': 2.5, class: 'sb-train-point' });
    dot.append(s('title', {}, `your setup: ${fmtNumber(p.chips, 6)} chips, ${fmtNumber(p.batch_per_chip, 4)} tokens per chip`));
    svg.append(dot);
  }
  const legend = h('ul', { class: 'sb-train-legend' }, REGIMES.map((g) =>
    h('li', {}, h('span', { class: 'sb-train-swatch', 'data-color': g.color }), g.label)));
  for (const [i, sw] of [...legend.querySelectorAll('.sb-train-swatch')].entries()) sw.style.background = REGIMES[i].color;
  // A cell's words are made when the reader points at it (hundreds of <title>s cost the page a
  // long task on every change).
  const detail = regimeDetail(svg, cols, (k) => cellText(m.cells[k], m.bits, m.chips[Math.floor(k / cols)], m.batch_per_chip[k % cols]));
  extra.replaceChildren(h('div', { class: 'sb-table-scroll' }, svg), detail, legend,
    h('p', { class: 'sb-muted sb-small' }, 'Each cell asks the planner\u2019s question: is some layout of the strategy (without pipelining) ' +
      `compute-bound and within HBM, with one of the planner\u2019s remat policies (${m.remat.join('; ')})? It takes the simplest that is, ` +
      'in the chapter\u2019s order: DP, FSDP, FSDP + TP, TP. Above one pod, the pods run DP over DCN, which needs its own batch per pod. ' +
      'The dashed lines are the chapter\u2019s closed-form floors; the ring marks the chips and batch of the form. The line under the map ' +
      'names every strategy that works in the cell you point at.'));
}
SbCalc.addRenderer('training.regime', drawRegime);

class SbRegimeMap extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    this.replaceChildren(
      h('p', {}, 'The chapter\u2019s picture of the whole question: for each chip count and batch per chip, which strategies keep every ' +
        'layer compute-bound and fit, for the chosen model and chip, costed as the planner costs them. More chips or a smaller batch push ' +
        'everything towards comms-bound.'),
      h('sb-calc', { name: 'training.regime' }));
  }
}

// ---------------------------------------------------------------- one strategy

function bars(phase, label) {
  const terms = [['math', 'T_math'], ['hbm', 'HBM weight loads'], ['fsdp', 'FSDP gathers'], ['tp', 'TP collectives'], ['ep', 'expert all-to-alls'],
    ['dp', 'DP all-reduce'], ['dcn', 'DCN all-reduce']]
    .filter(([k]) => phase[k] > 0);
  const max = Math.max(...terms.map(([k]) => phase[k]));
  return h('div', { class: 'sb-train-bars', 'data-phase': label },
    h('div', { class: 'sb-train-bars-head' }, `${label}: `, h('strong', {}, phase.compute_bound ? 'compute-bound' : 'comms-bound')),
    terms.map(([k, t]) => {
      const bar = h('span', { class: `sb-train-bar sb-train-bar-${k}` });
      bar.style.width = `${Math.max(1, 100 * phase[k] / max)}%`;
      return h('div', { class: 'sb-train-bar-row', 'data-term': k }, h('span', { class: 'sb-train-bar-label' }, t), h('span', { class: 'sb-train-bar-track' }, bar),
        h('span', { class: 'sb-train-bar-value' }, fmtQuantity(phase[k], 's')));
    }));
}

function drawStrategy(r, extra) {
  const coll = h('table', { class: 'sb-train-table sb-train-collectives' },
    h('thead', {}, h('tr', {}, ['phase', 'collective', 'array', 'over', 'bytes (V)', 'time', ''].map((t) => h('th', {}, t)))),
    h('tbody', {}, r.collectives.map((k) => h('tr', { 'data-op': k.op, 'data-phase': k.phase },
      h('td', {}, k.phase), h('td', {}, k.op), h('td', {}, h('code', {}, k.array)), h('td', {}, k.axis),
      h('td', {}, k.bytes_text), h('td', {}, k.t_text), h('td', { class: 'sb-muted sb-small' }, k.critical ? 'on the critical path' : 'prefetched or async')))));
  const conds = h('ul', { class: 'sb-train-conditions' }, r.conditions.map((c) => h('li', { 'data-holds': String(c.holds) },
    h('span', { class: c.holds ? 'sb-correct' : 'sb-wrong' }, c.holds ? '\u2713 ' : '\u2717 '),
    h('code', {}, c.text), `: ${c.lhs_text} ${c.upper ? '<' : '>'} ${c.rhs_text}`)));
  const side = h('table', { class: 'sb-train-table sb-train-sides' },
    h('thead', {}, h('tr', {}, ['strategy', 'X x Y', 'forward: math / comms', 'backward: math / comms', 'step', 'MFU bound', 'memory per chip', 'compute-bound'].map((t) => h('th', {}, t)))),
    h('tbody', {}, r.strategies.map((t) => t.error
      ? h('tr', { 'data-strategy': t.strategy }, h('td', {}, t.strategy), h('td', { colspan: 7, class: 'sb-muted' }, t.error))
      : h('tr', { 'data-strategy': t.strategy, class: t.strategy === r.strategy ? 'sb-train-best' : '' },
        h('td', {}, h('strong', {}, t.strategy)), h('td', {}, `${fmtNumber(t.X, 5)} x ${fmtNumber(t.Y, 5)}`),
        h('td', {}, `${fmtQuantity(t.fwd.math, 's')} / ${fmtQuantity(t.fwd.comms, 's')}`),
        h('td', {}, `${fmtQuantity(t.bwd.math, 's')} / ${fmtQuantity(t.bwd.comms, 's')}`),
        h('td', {}, fmtQuantity(t.step, 's'), h('div', { class: 'sb-muted sb-small' }, t.remat)), h('td', {}, pct(t.mfu)),
        h('td', { class: t.fits ? '' : 'sb-train-bad' }, fmtQuantity(t.mem, 'B'), t.fits ? '' : ' (does not fit)'),
        h('td', {}, yesNo(t.compute_bound))))));
  extra.replaceChildren(
    h('p', { class: 'sb-train-sharded' }, h('strong', {}, 'Weights, gradients, optimizer state: '), r.sharded.weights, '. ',
      h('strong', {}, 'Activations: '), r.sharded.activations, '.'),
    h('div', { class: 'sb-train-phases' }, bars(r.fwd, 'forward'), bars(r.bwd, 'backward')),
    h('h4', {}, `Memory and the step (remat: ${r.remat})`),
    h('div', { class: 'sb-train-phases' }, memoryBar(r.memory), timelineBars(r.timeline)),
    h('h4', {}, 'Collectives of one layer'), h('div', { class: 'sb-table-scroll' }, coll),
    h('h4', {}, 'When is it compute-bound?'), conds,
    h('h4', {}, 'The six strategies side by side'), h('div', { class: 'sb-table-scroll' }, side));
}
SbCalc.addRenderer('training.strategy', drawStrategy);

class SbTrainingStrategy extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    const calc = h('sb-calc', { name: 'training.strategy' });
    const buttons = ['DP', 'FSDP', 'TP', 'FSDP+TP', 'pipeline', 'DCN'].map((st) => h('button', { type: 'button', class: 'sb-btn sb-train-pick', 'data-strategy': st,
      onclick: () => calc.setInputs({ strategy: st }) }, st === 'DCN' ? 'DP across pods' : st));
    this.replaceChildren(
      h('p', {}, 'Each strategy shards something different and pays for it with different collectives. Per layer, the forward and backward ' +
        'matmuls must take longer than the collectives they wait for (the chapter overlaps the two perfectly).'),
      h('div', { class: 'sb-shard-presets', role: 'group', 'aria-label': 'strategies' }, buttons),
      calc);
  }
}

// ---------------------------------------------------------------- the FSDP x TP split

function drawSplit(r, extra, calc) {
  const p = r.plot;
  const comms = p.x.map((x, i) => Math.max(p.fsdp[i], p.tp[i]));
  const opts = {
    xs: p.x, xUnit: 'count', yUnit: 's', xLabel: 'X (FSDP degree; Y = N / X)', yLabel: 'time per layer (forward)', height: 300,
    series: [
      { label: 'FSDP gathers', ys: p.fsdp.map((v) => (v > 0 ? v : null)) },
      { label: 'TP collectives', ys: p.tp.map((v) => (v > 0 ? v : null)) },
      { label: 'T_math', ys: p.math, dash: [6, 4] },
      { label: 'layouts the mesh holds', ys: comms.map((v, i) => (p.layout[i] && v > 0 ? v : null)), points: true, stroke: '#475569', size: 7 },
      { label: 'the chapter\u2019s X', ys: p.x.map((x, i) => (x === p.X ? Math.max(comms[i], p.math[i]) : null)), points: true, stroke: '#c2410c' },
    ],
  };
  if (!calc.splitView) {
    const box = h('div', { class: 'sb-train-split-plot', role: 'img', 'aria-label': 'FSDP and TP comm times against the FSDP degree X' });
    const caption = h('p', { class: 'sb-muted sb-small sb-train-split-caption' });
    extra.append(box, caption);
    calc.splitView = { box, caption, plot: logLogPlot(box, opts) };
  } else {
    calc.splitView.plot.update(opts);
  }
  calc.splitView.caption.textContent = `The FSDP term grows with X and the TP term falls; they cross at X_opt = ${fmtNumber(p.x_opt, 4)}. ` +
    (p.lo <= p.hi ? `Every X from ${fmtNumber(p.lo, 4)} to ${fmtNumber(p.hi, 4)} keeps both under T_math. `
      : `No X keeps both under T_math: the TP term needs X above ${fmtNumber(p.lo, 4)} and the FSDP term X below ${fmtNumber(p.hi, 4)}, because the batch per chip is below the floor. `) +
    `The chapter rounds X_opt to a power of two: ${fmtNumber(p.X, 6)} x ${fmtNumber(p.Y, 6)}` +
    (p.idle > 0 ? ` on ${fmtNumber(p.used, 8)} chips, ${fmtNumber(p.idle, 8)} idle.` : '.');
}
SbCalc.addRenderer('training.split', drawSplit);

class SbFsdpTpSplit extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    this.replaceChildren(
      h('p', {}, 'With N chips split as X-way FSDP times Y-way TP, FSDP gathers weights (less as Y grows) and TP moves activations (less as X grows). ' +
        'The best X balances the two.'),
      h('sb-calc', { name: 'training.split' }));
  }
}

for (const [tag, cls] of [['sb-training-planner', SbTrainingPlanner], ['sb-plan-versus', SbPlanVersus], ['sb-regime-map', SbRegimeMap],
  ['sb-training-strategy', SbTrainingStrategy], ['sb-fsdp-tp-split', SbFsdpTpSplit]]) {
  if (!customElements.get(tag)) customElements.define(tag, cls);
}
