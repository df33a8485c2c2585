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
import { SbCalc, logLogPlot, fmtQuantity, h } from '../lib/widgets.js';

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

SbCalc.addRenderer('sharding.matmul', drawMatmul);
SbCalc.addRenderer('sharding.collective', drawCollective);

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
