// Chapter widgets of the sharding page (its content: chapters/sharding/page.html); the site serves
// this file as widgets/sharding.js. The page shell (calculators and one exercise per problem) comes
// from lib/page.js; chapter widgets are defined below it and fill the page's
// <section data-widget=...> slots. See web/README.md.
//
// <sb-sharded-matmul>: the sharded-matmul explorer. The sharding.matmul calculator (two shardings,
// a mesh, a chip, sizes) with presets for the book's four cases; under it the case, the plan's
// steps with their cost, the alternatives side by side, and a picture of which device holds which
// block of A, B and the output C (from the module's `blocks`).
// <sb-collective-plot>: the sharding.collective calculator with time against message size on
// log-log axes: the flat latency floor, the bandwidth slope and the knee between them.
import '../lib/page.js';
import { SbCalc, logLogPlot, fmtQuantity, fmtNumber, h } from '../lib/widgets.js';

const SVG = 'http://www.w3.org/2000/svg';

// An SVG element built with DOM methods (no markup strings).
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}

const PRESETS = [
  { label: 'Case 1: no contracting shard', a: 'A[I_X, J]', b: 'B[J, K_Y]' },
  { label: 'Case 2: one side sharded on J', a: 'A[I, J_X]', b: 'B[J, K]' },
  { label: 'Case 3: both sharded on J', a: 'A[I, J_X]', b: 'B[J_X, K]' },
  { label: 'Case 4: free dims on one axis', a: 'A[I_X, J]', b: 'B[J, K_X]' },
  { label: 'Question 6: FSDP + TP', a: 'A[I_X, J]', b: 'B[J_X, K_Y]' },
];

// Colour of block (i, j) of an n0 x n1 grid: hues spread over the blocks.
function blockColor(i, j, n0, n1) {
  const k = i * n1 + j, n = Math.max(1, n0 * n1);
  const hue = Math.round((k / n) * 300);
  return `hsl(${hue}, 62%, ${n > 1 ? 72 : 85}%)`;
}

// Row and column of a device in the drawn grid: axis 0 down, the other axes across.
function gridPos(coords, sizes) {
  let col = 0;
  for (let k = 1; k < sizes.length; k++) col = col * sizes[k] + coords[k];
  return { row: sizes.length > 1 ? coords[0] : 0, col: sizes.length > 1 ? col : coords[0] };
}

// One array: its global block grid on the left, the mesh on the right with each device filled in
// the colour of the block it holds (so replicas share a colour).
function arrayPanel(arr, blocks) {
  const d0 = arr.dims[0], d1 = arr.dims[1] || { name: '', blocks: 1 };
  const n0 = d0.blocks, n1 = d1.blocks;
  const sizes = blocks.mesh.sizes;
  const rows = sizes.length > 1 ? sizes[0] : 1;
  const cols = sizes.length > 1 ? sizes.slice(1).reduce((p, q) => p * q, 1) : sizes[0];
  const cell = Math.max(14, Math.min(46, Math.floor(300 / Math.max(rows, cols))));
  const bw = 150, bh = 150;
  const gridW = cols * cell, gridH = rows * cell;
  const width = bw + 60 + gridW + 10, height = Math.max(bh, gridH) + 58;
  const svg = s('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', class: 'sb-shard-svg',
    'aria-label': `${arr.text}: blocks and the devices holding them` });
  svg.append(s('text', { x: 0, y: 14, 'font-size': 13, 'font-weight': 600, fill: '#1b2430', 'font-family': 'system-ui, sans-serif' }, `${arr.text}  (${n0} x ${n1} blocks, ${arr.replication} ${arr.replication === 1 ? 'copy' : 'copies'})`));
  const top = 40;  // below the title and, under it, the mesh's caption (they overlapped on one line)
  // The array, cut into its blocks.
  for (let i = 0; i < n0; i++) {
    for (let j = 0; j < n1; j++) {
      const r = s('rect', { x: j * bw / n1, y: top + i * bh / n0, width: bw / n1, height: bh / n0,
        fill: blockColor(i, j, n0, n1), stroke: '#334', 'stroke-width': n0 * n1 > 64 ? 0.2 : 0.8 });
      r.append(s('title', {}, `block (${i}, ${j}) of ${arr.label}`));
      svg.append(r);
    }
  }
  svg.append(s('text', { x: bw / 2, y: top + bh + 14, 'text-anchor': 'middle', 'font-size': 11, fill: '#556', 'font-family': 'system-ui, sans-serif' },
    `${d1.name} ->  (${d0.name} down)`));
  // The mesh: each device in the colour of its block.
  const gx = bw + 60;
  const axisNames = blocks.mesh.names;
  svg.append(s('text', { x: gx, y: top - 4, 'font-size': 11, fill: '#556', 'font-family': 'system-ui, sans-serif' },
    sizes.length > 1 ? `devices: ${axisNames[0]} down, ${axisNames.slice(1).join('·')} across` : `devices along ${axisNames[0]}`));
  blocks.coords.forEach((c, id) => {
    const { row, col } = gridPos(c, sizes);
    const [bi, bj] = arr.holds[id];
    const g = s('g', { 'data-device': id, 'data-block': `${bi},${bj ?? 0}` });
    g.append(s('rect', { x: gx + col * cell, y: top + row * cell, width: cell - 2, height: cell - 2, rx: 3,
      fill: blockColor(bi, bj ?? 0, n0, n1), stroke: '#223', 'stroke-width': 0.8 }));
    if (cell >= 26) {
      g.append(s('text', { x: gx + col * cell + (cell - 2) / 2, y: top + row * cell + cell / 2 + 3,
        'text-anchor': 'middle', 'font-size': 10, fill: '#1b2430', 'font-family': 'ui-monospace, monospace' }, `${bi},${bj ?? 0}`));
    }
    g.append(s('title', {}, `device ${id} (${axisNames.map((n, k) => `${n}=${c[k]}`).join(', ')}) holds block (${bi}, ${bj ?? 0})`));
    svg.append(g);
  });
  return svg;
}

function stepLine(st) {
  if (st.kind === 'matmul') {
    return h('li', { class: 'sb-shard-step sb-shard-matmul' },
      h('strong', {}, 'local matmul '), h('code', {}, st.from), ' -> ', h('code', {}, st.to),
      ` · ${fmtQuantity(st.flops, 'flop')} per chip`);
  }
  if (st.kind === 'slice') {
    return h('li', { class: 'sb-shard-step' }, h('strong', {}, `slice ${st.array} `), h('code', {}, st.from), ' -> ',
      h('code', {}, st.to), ' · free: each device keeps the part it needs');
  }
  return h('li', { class: 'sb-shard-step', 'data-kind': st.kind },
    h('strong', {}, `${st.kind}_${st.axes.join('')} `), `${st.when} the matmul: `, h('code', {}, st.from), ' -> ',
    h('code', {}, st.to),
    ` · V = ${fmtQuantity(st.bytes, 'B')} · ${fmtQuantity(st.t, 's')} (${st.regime}; ${fmtQuantity(st.bytes_per_chip, 'B')} in per chip)`);
}

function planTable(r) {
  const plans = [{ ...r.plan, tag: 'default' }, ...r.alternatives.map((p) => ({ ...p, tag: '' }))];
  return h('div', { class: 'sb-table-scroll sb-shard-alts-box' }, h('table', { class: 'sb-shard-alts' },
    h('thead', {}, h('tr', {}, h('th', {}, 'plan'), h('th', {}, 'output'), h('th', {}, 'T_comms'),
      h('th', {}, 'T_math'), h('th', {}, 'total (no overlap)'), h('th', {}, 'verdict'))),
    h('tbody', {}, plans.map((p) => h('tr', { class: p.tag ? 'sb-shard-default' : '' },
      h('td', {}, p.tag ? `${p.name} (book's default)` : p.name), h('td', {}, h('code', {}, p.output)),
      h('td', {}, fmtQuantity(p.t_comms, 's')), h('td', {}, fmtQuantity(p.t_math, 's')),
      h('td', {}, fmtQuantity(p.t_total, 's')), h('td', {}, p.verdict))))));
}

function drawMatmul(r, extra) {
  const arrays = r.blocks.arrays || [];
  const pictures = arrays.length
    ? arrays.map((a) => h('figure', { class: 'sb-shard-fig', 'data-array': a.label }, arrayPanel(a, r.blocks)))
    : [h('p', { class: 'sb-muted' }, r.blocks.omitted || '')];
  extra.replaceChildren(
    h('p', { class: 'sb-shard-case', 'data-case': r.case }, h('strong', {}, `Case ${r.case}. `), r.case_text.replace(/^Case \d( \(extended\))?: /, '')),
    h('p', {}, 'Output sharding: ', h('code', { class: 'sb-shard-out' }, r.output_sharding),
      ` · T_math ${fmtQuantity(r.plan.t_math, 's')} against T_comms ${fmtQuantity(r.plan.t_comms, 's')} per chip: ${r.plan.verdict}.`),
    h('h4', {}, 'Steps'),
    h('ol', { class: 'sb-shard-steps' }, r.plan.steps.map(stepLine)),
    h('h4', {}, 'The choices side by side'),
    planTable(r),
    h('h4', {}, 'Who holds what'),
    h('p', { class: 'sb-muted sb-small' }, 'Each array is cut into blocks (left); each device of the mesh (right) is ' +
      'painted the colour of the block it holds. Devices that share a colour hold copies.'),
    h('div', { class: 'sb-shard-pictures' }, pictures));
}

// Time against message size, with the current message as a point.
function drawCollective(r, extra, calc) {
  const p = r.plot;
  if (!p) return;
  const pts = p.x.map((x, i) => [x, p.t[i], p.t_bw[i], p.t_lat[i], null]);
  pts.push([p.point.bytes > 0 ? p.point.bytes : null, null, null, null, p.point.t]);
  const good = pts.filter((q) => q[0] > 0).sort((a, b) => a[0] - b[0]);
  const opts = {
    xs: good.map((q) => q[0]), xUnit: 'B', yUnit: 's', xLabel: 'message size V', yLabel: 'time', height: 320,
    series: [
      { label: `${r.op} time`, ys: good.map((q) => q[1]) },
      { label: 'bandwidth term', ys: good.map((q) => q[2]), dash: [6, 4], width: 1.5 },
      { label: 'latency term', ys: good.map((q) => (q[3] > 0 ? q[3] : null)), dash: [2, 4], width: 1.5 },
      { label: 'this message', ys: good.map((q) => q[4]), points: true, stroke: '#c2410c' },
    ],
  };
  const knee = p.knee > 0 ? `Below about ${fmtQuantity(p.knee, 'B')} the hops' latency sets the time (flat); above it the bandwidth does (slope 1).` : '';
  const caption = `${r.op}: ${fmtQuantity(r.values.t.value, 's')} for ${fmtQuantity(p.point.bytes, 'B')}, ${r.regime}. ${knee}`;
  if (!calc.collectiveView) {
    const text = h('p', { class: 'sb-muted sb-small sb-collective-caption' });
    const box = h('div', { class: 'sb-collective-plot-box' });
    extra.append(text, box);
    calc.collectiveView = { text, box, plot: logLogPlot(box, opts) };
  } else {
    calc.collectiveView.plot.update(opts);
  }
  calc.collectiveView.text.textContent = caption;
}

// ---------------------------------------------------------------- the ring, step by step

// Colour of a chunk: a shard by the device it started on (AllGather), a piece by the device it is
// for (AllToAll), so that a finished AllToAll paints each device one colour.
function chunkColor(chunk, n, op) {
  const k = op === 'AllToAll' ? chunk % n : chunk;
  return `hsl(${Math.round((k / n) * 330)}, 65%, 52%)`;
}

// The ring after `step` steps (0: before any): each device with the chunks it holds, the moves of
// that step as arrows (clockwise outside the ring, the other way inside), and on every link the
// chunks it has carried so far each way. All from the module's ring (steps, held, sent).
function ringPicture(ring, step) {
  const n = ring.n, W = 520, H = 440, cx = W / 2, cy = H / 2, R = 150;
  const pos = (i, r = R) => [cx + r * Math.sin((2 * Math.PI * i) / n), cy - r * Math.cos((2 * Math.PI * i) / n)];
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: 'sb-ring-svg', role: 'img',
    'aria-label': `${ring.op} on a ring of ${n}, after step ${step}` });
  const defs = s('defs');
  defs.append(s('marker', { id: 'sb-ring-head', viewBox: '0 0 10 10', refX: 8, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' },
    s('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: '#334155' })));
  svg.append(defs);
  svg.append(s('circle', { cx, cy, r: R, fill: 'none', stroke: '#cbd5e1', 'stroke-width': 2 }));
  // Links and their counters.
  const sent = step > 0 ? ring.sent[step - 1] : [0, 0];
  for (let i = 0; i < n; i++) {
    const mid = (2 * Math.PI * (i + 0.5)) / n;
    const tx = cx + (R + 22) * Math.sin(mid), ty = cy - (R + 22) * Math.cos(mid);
    svg.append(s('text', { x: tx, y: ty + 4, 'text-anchor': 'middle', 'font-size': 10, fill: '#5b6573', 'data-link': i },
      ring.bidirectional ? `${sent[0]}→ ${sent[1]}←` : `${sent[0]}→`));
  }
  // This step's moves.
  for (const [chunk, from, to, cw] of step > 0 ? ring.steps[step - 1] : []) {
    const [x1, y1] = pos(from, cw ? R + 8 : R - 8), [x2, y2] = pos(to, cw ? R + 8 : R - 8);
    const bend = cw ? 1.18 : 0.8;
    const mid = (2 * Math.PI * (from + (cw ? 0.5 : -0.5))) / n;
    const qx = cx + R * bend * Math.sin(mid), qy = cy - R * bend * Math.cos(mid);
    svg.append(s('path', { d: `M ${x1} ${y1} Q ${qx} ${qy} ${x2} ${y2}`, fill: 'none', stroke: chunkColor(chunk, n, ring.op),
      'stroke-width': 2, 'marker-end': 'url(#sb-ring-head)', opacity: 0.85, 'data-move': `${chunk}:${from}>${to}` }));
  }
  // Devices and what they hold.
  const held = ring.held[step];
  for (let i = 0; i < n; i++) {
    const [x, y] = pos(i);
    svg.append(s('circle', { cx: x, cy: y, r: 13, fill: '#f8fafc', stroke: '#334155', 'stroke-width': 1.5 }));
    svg.append(s('text', { x, y: y + 4, 'text-anchor': 'middle', 'font-size': 11, 'font-weight': 600, fill: '#1b2430' }, String(i)));
    const chunks = held[i], per = Math.ceil(Math.sqrt(chunks.length)), sz = Math.max(4, Math.min(9, 40 / per));
    const [bx, by] = pos(i, R - 44);
    chunks.forEach((c, k) => svg.append(s('rect', { x: bx - (per * sz) / 2 + (k % per) * sz, y: by - (per * sz) / 2 + Math.floor(k / per) * sz,
      width: sz - 1, height: sz - 1, fill: chunkColor(c, n, ring.op), 'data-held': `${i}:${c}` })));
  }
  return svg;
}

// sharding.ring: the ring stepped through by a slider, and the time against N of both collectives.
function drawRing(r, extra, calc) {
  const ring = r.ring;
  if (!ring) return;
  const steps = ring.steps.length;
  if (!calc.ringView) {
    const slider = h('input', { type: 'range', min: 0, value: 0, step: 1, 'aria-label': 'step', class: 'sb-ring-step' });
    const label = h('span', { class: 'sb-ring-step-label', 'aria-live': 'polite' });
    const prev = h('button', { type: 'button', class: 'sb-btn', 'data-action': 'prev' }, '◀ step');
    const next = h('button', { type: 'button', class: 'sb-btn', 'data-action': 'next' }, 'step ▶');
    const play = h('button', { type: 'button', class: 'sb-btn', 'data-action': 'play' }, 'play');
    const picture = h('div', { class: 'sb-ring-picture' });
    const text = h('p', { class: 'sb-muted sb-small sb-ring-caption' });
    const box = h('div', { class: 'sb-ring-plot' });
    const view = calc.ringView = { slider, label, picture, text, box, timer: 0 };
    const show = (k) => {
      const rg = calc.response?.ring;
      if (!rg) return;
      view.step = Math.max(0, Math.min(rg.steps.length, Number(k) || 0));
      slider.value = String(view.step);
      label.textContent = `step ${view.step} of ${rg.steps.length}`;
      picture.replaceChildren(ringPicture(rg, view.step));
    };
    view.show = show;
    slider.addEventListener('input', () => show(slider.value));
    prev.addEventListener('click', () => show(view.step - 1));
    next.addEventListener('click', () => show(view.step + 1));
    play.addEventListener('click', () => {
      clearInterval(view.timer);
      show(0);
      view.timer = setInterval(() => {
        if (view.step >= (calc.response?.ring?.steps.length ?? 0)) { clearInterval(view.timer); return; }
        show(view.step + 1);
      }, 700);
    });
    extra.append(h('div', { class: 'sb-ring-controls' }, prev, slider, next, play, label), picture, text, box);
  }
  const view = calc.ringView;
  view.slider.max = String(steps);
  view.show(Math.min(view.step ?? 0, steps));
  const c = r.curve;
  const opts = {
    xs: c.n, xUnit: 'count', yUnit: 's', xLabel: 'devices on the ring N', yLabel: 'time', height: 300,
    series: [
      { label: 'AllGather, step by step', ys: c.allgather, stroke: '#1f5fbf' },
      { label: "AllGather, the book's formula", ys: c.allgather_book, stroke: '#1f5fbf', dash: [6, 4], width: 1.5 },
      { label: 'AllToAll, step by step', ys: c.alltoall, stroke: '#c2410c' },
      { label: "AllToAll, the book's formula", ys: c.alltoall_book, stroke: '#c2410c', dash: [6, 4], width: 1.5 },
      { label: `this ring (N = ${ring.n})`, ys: c.n.map((k, i) => (k === ring.n ? (ring.op === 'AllToAll' ? c.alltoall[i] : c.allgather[i]) : null)), points: true, stroke: '#111827' },
    ],
  };
  if (!view.plot) view.plot = logLogPlot(view.box, opts);
  else view.plot.update(opts);
  view.text.textContent = `${r.verdict}. Every link carries the same traffic: ${r.values.link_chunks.text} chunks of ` +
    `${r.values.chunk_bytes.text} over the busiest one. Below, the time against N for the same V: an AllGather takes about ` +
    'V / W_ici whatever N is; an AllToAll about a quarter of that.';
}

// ---------------------------------------------------------------- Question 4's phase diagram

const PHASE_COLORS = ['#1f5fbf', '#a9c4ee', '#c2410c', '#f5bfa3'];
const PHASE_NAMES = ['strategy 1 wins, compute-bound', 'strategy 1 wins, communication-bound',
  'strategy 2 wins, compute-bound', 'strategy 2 wins, communication-bound'];

// sharding.strategies: which strategy is faster at each (B, D) of the module's grid, with the
// book's thresholds as lines and the reader's point.
function drawPhase(r, extra) {
  const p = r.phase;
  if (!p) return;
  const nb = p.b.length, nd = p.d.length;
  const L = 74, T = 10, PW = 480, PH = 360, W = L + PW + 20, H = T + PH + 52;
  const cw = PW / nb, ch = PH / nd;
  // Positions on the log axes (display only): the grid spans p.b[0]..p.b[nb-1] and p.d[0]..p.d[nd-1].
  const xAt = (b) => L + (PW * Math.log(b / p.b[0])) / Math.log(p.b[nb - 1] / p.b[0]);
  const yAt = (d) => T + PH - (PH * Math.log(d / p.d[0])) / Math.log(p.d[nd - 1] / p.d[0]);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: 'sb-phase-svg', role: 'img',
    'aria-label': `which strategy wins over batch B and width D: ${r.verdict}` });
  p.cells.forEach((row, j) => row.forEach((v, i) => svg.append(s('rect', {
    x: L + i * cw, y: T + PH - (j + 1) * ch, width: cw + 0.4, height: ch + 0.4, fill: PHASE_COLORS[v], 'data-cell': v }))));
  const inside = (v, lo, hi) => v >= lo && v <= hi;
  const line = (attrs, label, lx, ly) => {
    svg.append(s('line', { stroke: '#111827', 'stroke-width': 1.5, 'stroke-dasharray': '6 4', ...attrs }));
    svg.append(s('text', { x: lx, y: ly, 'font-size': 11, fill: '#111827' }, label));
  };
  if (inside(p.b_star, p.b[0], p.b[nb - 1])) line({ x1: xAt(p.b_star), x2: xAt(p.b_star), y1: T, y2: T + PH, 'data-line': 'b_star' }, `B* = ${fmtNumber(p.b_star, 4)}`, xAt(p.b_star) + 4, T + 12);
  if (inside(p.d_star, p.d[0], p.d[nd - 1])) line({ x1: L, x2: L + PW, y1: yAt(p.d_star), y2: yAt(p.d_star), 'data-line': 'd_star' }, `D* = ${fmtNumber(p.d_star, 4)}`, L + 4, yAt(p.d_star) - 4);
  if (inside(p.d_x, p.d[0], p.d[nd - 1])) line({ x1: L, x2: L + PW, y1: yAt(p.d_x), y2: yAt(p.d_x), 'stroke-dasharray': '2 3', 'data-line': 'd_x' }, `|X| D* = ${fmtNumber(p.d_x, 4)}`, L + 4, yAt(p.d_x) - 4);
  if (inside(p.point.b, p.b[0], p.b[nb - 1]) && inside(p.point.d, p.d[0], p.d[nd - 1])) {
    svg.append(s('circle', { cx: xAt(p.point.b), cy: yAt(p.point.d), r: 6, fill: '#fff', stroke: '#111827', 'stroke-width': 2, 'data-point': p.point.winner }));
  }
  // Axes: powers of 10 along B, of 2 (every other one where they crowd) along D.
  svg.append(s('rect', { x: L, y: T, width: PW, height: PH, fill: 'none', stroke: '#334155' }));
  for (let e = 0; 10 ** e <= p.b[nb - 1] * 1.0001; e++) {
    if (10 ** e < p.b[0]) continue;
    const x = xAt(10 ** e);
    svg.append(s('line', { x1: x, x2: x, y1: T + PH, y2: T + PH + 5, stroke: '#334155' }));
    svg.append(s('text', { x, y: T + PH + 18, 'text-anchor': 'middle', 'font-size': 11, fill: '#334155' }, fmtNumber(10 ** e, 3)));
  }
  const e0 = Math.ceil(Math.log2(p.d[0])), e1 = Math.floor(Math.log2(p.d[nd - 1]));
  const every = e1 - e0 > 10 ? 2 : 1;
  for (let e = e0; e <= e1; e += every) {
    const y = yAt(2 ** e);
    svg.append(s('line', { x1: L - 5, x2: L, y1: y, y2: y, stroke: '#334155' }));
    svg.append(s('text', { x: L - 8, y: y + 4, 'text-anchor': 'end', 'font-size': 11, fill: '#334155' }, fmtNumber(2 ** e, 5)));
  }
  svg.append(s('text', { x: L + PW / 2, y: H - 8, 'text-anchor': 'middle', 'font-size': 12, 'font-weight': 600, fill: '#1b2430' }, 'batch B (tokens)'));
  svg.append(s('text', { x: 14, y: T + PH / 2, 'text-anchor': 'middle', 'font-size': 12, 'font-weight': 600, fill: '#1b2430',
    transform: `rotate(-90 14 ${T + PH / 2})` }, 'model width D'));
  const legend = h('p', { class: 'sb-phase-legend sb-small' }, PHASE_NAMES.map((name, i) =>
    h('span', {}, s('svg', { width: 14, height: 12 }, s('rect', { width: 12, height: 12, fill: PHASE_COLORS[i] })), ` ${name}`)));
  extra.replaceChildren(h('div', { class: 'sb-phase-box' }, svg), legend,
    h('p', { class: 'sb-muted sb-small' }, 'Strategy 1 gathers Y and multiplies the whole matmul on every chip; strategy 2 ' +
      'multiplies its slice of D and AllReduces the output. Dashed: B* = C/W_ici, where strategy 1 stops being ' +
      'communication-bound, and D* = 2C/W_ici, above which strategy 2 wins at large batch; dotted: |X| D*, above which strategy 2 is compute-bound.'));
}

SbCalc.addRenderer('sharding.matmul', drawMatmul);
SbCalc.addRenderer('sharding.collective', drawCollective);
SbCalc.addRenderer('sharding.ring', drawRing);
SbCalc.addRenderer('sharding.strategies', drawPhase);

class SbShardedMatmul extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    const calc = h('sb-calc', { name: 'sharding.matmul' });
    const buttons = PRESETS.map((p) => h('button', { type: 'button', class: 'sb-btn sb-shard-preset', 'data-a': p.a, 'data-b': p.b,
      onclick: () => calc.setInputs({ a: p.a, b: p.b }) }, p.label));
    // Built synchronously, so that the page shell does not list this calculator again.
    this.replaceChildren(
      h('p', {}, 'Type two shardings in the book\u2019s notation (', h('code', {}, 'A[I_X, J]'), ', ', h('code', {}, 'B[J_{XY}, K]'),
        ') and a mesh (', h('code', {}, 'X=4,Y=4'), ', ', h('code', {}, "{'X': 8, 'Y': 2}"), '). The dimension the two share is ' +
        'contracted. The explorer names the case, the collectives with their cost and the output sharding.'),
      h('div', { class: 'sb-shard-presets', role: 'group', 'aria-label': 'examples' }, buttons),
      calc);
  }
}

class SbCollectivePlot extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    this.replaceChildren(
      h('p', {}, 'The cost of one collective over torus axes. Small messages pay a fixed latency per hop; large ones ' +
        'pay bytes over bandwidth. Axes without wraparound run as open lines and cost more.'),
      h('sb-calc', { name: 'sharding.collective' }));
  }
}

if (!customElements.get('sb-sharded-matmul')) customElements.define('sb-sharded-matmul', SbShardedMatmul);
if (!customElements.get('sb-collective-plot')) customElements.define('sb-collective-plot', SbCollectivePlot);
