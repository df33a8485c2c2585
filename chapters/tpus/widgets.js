// Chapter widgets of the tpus page (its content: chapters/tpus/page.html); the site serves
// this file as widgets/tpus.js. The page shell (calculators and one exercise per problem) comes
// from lib/page.js; chapter widgets are defined below it and fill the page's
// <section data-widget=...> slots. See web/README.md.
//
// <sb-slice-explorer>: pick a TPU and a slice shape; the ICI torus is drawn as SVG (a 3D slice as
// its 2D layers side by side). Solid lines are neighbour links; dashed arcs are wraparound links
// (they leave one edge and come back in at the opposite one). Click two chips to see their
// distance and the route between them. Below: the slice's inventory (tpus.inventory) and the
// transfer-time calculator (tpus.transfer) with its stages drawn as bars, the bottleneck marked.
// Everything shown is computed by the core (tpus.topology, tpus.inventory, tpus.transfer).
import '../lib/page.js';
import { SbCalc, scaling, chipTable, getChip, onChip, widgetState, widgetKey, h, fmtQuantity, fmtNumber } from '../lib/widgets.js';

const SVG = 'http://www.w3.org/2000/svg';
const MAX_DRAWN = 4096;  // chips; larger slices are summarised instead of drawn
const COLORS = {
  node: '#e8eef7', nodeStroke: '#5b6b82', link: '#9aa7b8', wrap: '#c2410c', path: '#2563eb',
  from: '#16a34a', to: '#dc2626', text: '#334155', layer: '#f8fafc',
};

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

const key = (c) => c.join(',');

// Chip coordinates from a URL value ("1,2" or "1,2,3"), or null unless they are small whole numbers.
function coords(text) {
  if (typeof text !== 'string' || !/^\d{1,6}(,\d{1,6}){0,2}$/.test(text)) return null;
  return text.split(',').map(Number);
}

// Where each chip sits: axis 0 runs right, axis 1 down, axis 2 picks the layer (layers side by side,
// wrapping onto more rows of layers when there are many).
function layout(dims, avail = 1000) {
  const nx = dims[0], ny = dims[1] ?? 1, nz = dims[2] ?? 1;
  // Aim for layers of at least ~180 px side by side in the width there is (a phone gets one per
  // row); layer width is (nx + 1.8) cells + 28 px.
  const want = Math.max(1, Math.min(nz, Math.floor(avail / 180)));
  const cell = Math.max(9, Math.min(46, Math.floor(440 / Math.max(nx, ny)), Math.floor((avail / want - 28) / (nx + 1.8))));
  const margin = Math.round(cell * 0.9) + 14;
  const layerW = nx * cell + 2 * margin, layerH = ny * cell + 2 * margin + 16;
  const perRow = Math.max(1, Math.min(nz, Math.floor((avail + 100) / layerW) || 1));
  const rows = Math.ceil(nz / perRow);
  const pos = (c) => {
    const z = c[2] ?? 0;
    const ox = (z % perRow) * layerW + margin, oy = Math.floor(z / perRow) * layerH + margin + 16;
    return [ox + (c[0] + 0.5) * cell, oy + ((c[1] ?? 0) + 0.5) * cell];
  };
  const origin = (z) => [(z % perRow) * layerW, Math.floor(z / perRow) * layerH];
  return { nx, ny, nz, cell, margin, layerW, layerH, perRow, width: perRow * layerW, height: rows * layerH, pos, origin };
}

// A dashed stub leaving an edge chip outward and curling back: one end of a wraparound link.
function wrapStub(x, y, dx, dy, len, attrs) {
  const ex = x + dx * len, ey = y + dy * len;
  // Curl sideways so the stub reads as an arc rather than a line.
  const cx = x + dx * len * 0.7 + dy * len * 0.5, cy = y + dy * len * 0.7 + dx * len * 0.5;
  return s('path', { d: `M ${x} ${y} Q ${cx} ${cy} ${ex} ${ey}`, fill: 'none', ...attrs });
}

// One layer of the slice (axis 2 = z): its frame, its chips and the links and wraparound stubs
// of axes 0 and 1. `g` holds the SVG groups and the drawing's settings.
function drawLayer(g, z, { from, to, onPick }) {
  const { L, dims, wrap, dense, r, stubLen, stubAttrs } = g;
  const [ox, oy] = L.origin(z);
  g.svg.append(s('rect', { x: ox + 4, y: oy + 18, width: L.layerW - 8, height: L.layerH - 22, rx: 6,
    fill: COLORS.layer, stroke: '#e2e8f0' }));
  if (dims.length === 3) {
    g.svg.append(s('text', { x: ox + 8, y: oy + 13, 'font-size': 12, fill: COLORS.text },
      `layer z = ${z}` + (wrap[2] && z === L.nz - 1 ? '  (wraps to z = 0)' : '')));
  }
  for (let y = 0; y < L.ny; y++) {
    for (let x = 0; x < L.nx; x++) {
      const c = dims.length === 1 ? [x] : dims.length === 2 ? [x, y] : [x, y, z];
      const [px, py] = L.pos(c);
      if (!dense) {
        if (x + 1 < L.nx) g.links.append(s('line', { x1: px, y1: py, x2: px + L.cell, y2: py, stroke: COLORS.link, 'stroke-width': 1.4 }));
        if (y + 1 < L.ny) g.links.append(s('line', { x1: px, y1: py, x2: px, y2: py + L.cell, stroke: COLORS.link, 'stroke-width': 1.4 }));
      }
      // Wraparound: dashed arcs out of both opposite edges.
      if (wrap[0] && x === 0) g.wraps.append(wrapStub(px, py, -1, 0, stubLen, { ...stubAttrs, 'data-axis': 0 }));
      if (wrap[0] && x === L.nx - 1) g.wraps.append(wrapStub(px, py, 1, 0, stubLen, { ...stubAttrs, 'data-axis': 0 }));
      if (wrap[1] && y === 0) g.wraps.append(wrapStub(px, py, 0, -1, stubLen, { ...stubAttrs, 'data-axis': 1 }));
      if (wrap[1] && y === L.ny - 1) g.wraps.append(wrapStub(px, py, 0, 1, stubLen, { ...stubAttrs, 'data-axis': 1 }));
      const k = key(c);
      const circle = s('circle', {
        cx: px, cy: py, r, fill: k === key(from ?? []) ? COLORS.from : k === key(to ?? []) ? COLORS.to : COLORS.node,
        stroke: COLORS.nodeStroke, 'stroke-width': 1, 'data-chip': k, tabindex: dense ? null : 0,
      }, s('title', {}, `TPU (${k})`));
      circle.addEventListener('click', () => onPick(c));
      circle.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); onPick(c); } });
      g.nodes.append(circle);
    }
  }
}

// Axis 2 (between layers): arrows from each layer to the next, a dashed arc back if it wraps.
function drawLayerLinks(g) {
  const { L, wrap, stubAttrs } = g;
  for (let z = 0; z + 1 < L.nz; z++) {
    const [ox, oy] = L.origin(z);
    if (Math.floor(z / L.perRow) !== Math.floor((z + 1) / L.perRow)) {
      // The next layer starts a new row: a note instead of a long line.
      g.links.append(s('text', { x: ox + L.layerW - 4, y: oy + 13, 'font-size': 11, fill: COLORS.text, 'text-anchor': 'end' },
        `continues at z = ${z + 1}`));
      continue;
    }
    const yMid = oy + 18 + (L.layerH - 22) / 2;
    g.links.append(s('line', { x1: ox + L.layerW - 10, y1: yMid, x2: ox + L.layerW + 10, y2: yMid,
      stroke: COLORS.link, 'stroke-width': 3 }));
  }
  if (!wrap[2]) return;
  // Axis 2 wraps: dashed arcs out of the first layer's left side and the last layer's right side.
  const [ax, ay] = L.origin(0), [bx, by] = L.origin(L.nz - 1);
  const mid = 18 + (L.layerH - 22) / 2;
  g.wraps.append(s('path', { d: `M ${ax + 4} ${ay + mid - 14} Q ${ax - 2} ${ay + mid} ${ax + 4} ${ay + mid + 14}`, fill: 'none', ...stubAttrs, 'stroke-width': 3, 'data-axis': 2 }));
  g.wraps.append(s('path', { d: `M ${bx + L.layerW - 4} ${by + mid - 14} Q ${bx + L.layerW + 2} ${by + mid} ${bx + L.layerW - 4} ${by + mid + 14}`, fill: 'none', ...stubAttrs, 'stroke-width': 3, 'data-axis': 2 }));
}

// The route: consecutive chips; a step that jumps across an edge is a wraparound hop.
function drawRoute(g, path) {
  const { L, stubLen } = g;
  for (let i = 0; i + 1 < path.length; i++) {
    const a = path[i], b = path[i + 1];
    const [ax, ay] = L.pos(a), [bx, by] = L.pos(b);
    const axis = a.findIndex((v, j) => v !== b[j]);
    if (Math.abs(a[axis] - b[axis]) > 1) {
      // A wraparound hop: out of one edge and in at the other. Layers (axis 2) sit side by side,
      // so a hop along axis 2 leaves sideways like one along axis 0.
      const dir = b[axis] > a[axis] ? -1 : 1;  // leaving through the low edge means moving down
      const [dx, dy] = axis === 1 ? [0, dir] : [dir, 0];
      const attrs = { stroke: COLORS.path, 'stroke-width': 3.5, 'stroke-dasharray': '4 3', 'data-path-wrap': '' };
      g.hot.append(wrapStub(ax, ay, dx, dy, stubLen, attrs), wrapStub(bx, by, -dx, -dy, stubLen, attrs));
    } else if (axis === 2) {
      // To the next layer: an arc over the row, so it does not read as a run along axis 0.
      const lift = Math.max(L.cell * 0.55, 10);
      const mx = (ax + bx) / 2 + (ay === by ? 0 : lift), my = (ay + by) / 2 - (ay === by ? lift : 0);
      g.hot.append(s('path', { d: `M ${ax} ${ay} Q ${mx} ${my} ${bx} ${by}`, fill: 'none', stroke: COLORS.path,
        'stroke-width': 3.5, 'stroke-linecap': 'round', 'data-path': '' }));
    } else {
      g.hot.append(s('line', { x1: ax, y1: ay, x2: bx, y2: by, stroke: COLORS.path, 'stroke-width': 3.5,
        'stroke-linecap': 'round', 'data-path': '' }));
    }
  }
}

function drawTorus(t, { path = [], from = null, to = null, onPick, avail }) {
  const dims = t.dims, wrap = t.wrap;
  const n = dims.reduce((a, b) => a * b, 1);
  if (n > MAX_DRAWN) {
    return h('p', { class: 'sb-muted' }, `A ${dims.join('x')} slice has ${n} chips: too many to draw. ` +
      'The distances and the inventory below still hold.');
  }
  const L = layout(dims, avail);
  const pad = 8;  // room for the axis-2 wraparound arcs at the outer edges
  const svg = s('svg', { viewBox: `${-pad} 0 ${L.width + 2 * pad} ${L.height}`, width: L.width + 2 * pad, height: L.height, role: 'img',
    'data-dims': dims.join('x'), 'data-wrap-axes': wrap.map((w) => (w ? 1 : 0)).join(','),
    'aria-label': `ICI torus of a ${dims.join('x')} slice; wraparound on axes: ` +
      (wrap.map((w, i) => (w ? i : null)).filter((x) => x !== null).join(', ') || 'none') });
  const dense = n > 1024;
  const g = {
    svg, L, dims, wrap, dense, r: Math.max(3, L.cell * 0.28), stubLen: L.margin - 6,
    stubAttrs: { stroke: COLORS.wrap, 'stroke-width': dense ? 1 : 1.6, 'stroke-dasharray': '4 3', 'data-wrap': '' },
    links: s('g', { class: 'sb-torus-links' }), wraps: s('g', { class: 'sb-torus-wraps' }),
    hot: s('g', { class: 'sb-torus-path' }), nodes: s('g', { class: 'sb-torus-nodes' }),
  };
  for (let z = 0; z < L.nz; z++) drawLayer(g, z, { from, to, onPick });
  if (dims.length === 3 && L.nz > 1) drawLayerLinks(g);
  drawRoute(g, path);
  svg.append(g.links, g.wraps, g.hot, g.nodes);
  return svg;
}

function legend() {
  const item = (stroke, dash, label) => h('span', { class: 'sb-small' },
    s('svg', { width: 34, height: 10 }, s('line', { x1: 2, y1: 5, x2: 32, y2: 5, stroke, 'stroke-width': 2.5, 'stroke-dasharray': dash })),
    ' ', label);
  return h('p', { class: 'sb-muted sb-slice-legend' }, item(COLORS.link, null, 'ICI link'),
    item(COLORS.wrap, '4 3', 'wraparound link (leaves one edge, re-enters at the opposite edge)'),
    item(COLORS.path, null, 'route'));
}

// Routes of the transfer calculator worth a button: one link, and the chains of stages of the
// chapter's host-offload questions.
const ROUTES = [
  { label: 'one ICI route', route: 'ici' },
  { label: 'host offload: PCIe, then an ICI gather', route: 'host_gather_ici' },
  { label: 'host offload over DCN', route: 'host_gather_dcn' },
  { label: 'between hosts: PCIe, DCN, PCIe', route: 'dcn' },
  { label: 'HBM, then a matmul of 1e12 FLOPs', route: 'hbm', flops: 1e12 },
];

const KIND_COLORS = { hbm: '#15803d', vmem: '#be185d', ici: '#1f5fbf', pcie: '#0e7490', dcn: '#7e22ce', compute: '#b45309' };

// The stages of tpus.transfer as two Gantt charts on one time axis: one after another (the upper
// bound, T_upper = the sum) and overlapped (the lower bound: all stream at once, the slowest sets
// the pace). Start times and lengths are the module's (start_serial, seconds); the bottleneck is
// outlined.
function drawStages(r, extra) {
  const stages = r.stages || [];
  if (!stages.length) { extra.replaceChildren(); return; }
  const W = 640, pad = 8, PW = W - 2 * pad, rowH = 34, headH = 22;
  const total = r.t_serial > 0 ? r.t_serial : 1;
  const x = (t) => pad + (PW * t) / total;
  const groups = [
    { title: `One after another: ${fmtQuantity(r.t_serial, 's')} (the sum)`, start: (st) => st.start_serial, end: r.t_serial, key: 'serial' },
    { title: `Overlapped: ${fmtQuantity(r.t_overlapped, 's')} (the slowest stage)`, start: () => 0, end: r.t_overlapped, key: 'overlapped' },
  ];
  const groupH = headH + stages.length * rowH + 10;
  const svg = s('svg', { viewBox: `0 0 ${W} ${groups.length * groupH}`, width: W, height: groups.length * groupH, role: 'img',
    class: 'sb-gantt', 'aria-label': `stages in sequence take ${fmtQuantity(r.t_serial, 's')}; overlapped, ${fmtQuantity(r.t_overlapped, 's')}` });
  groups.forEach((g, gi) => {
    const top = gi * groupH;
    svg.append(s('text', { x: pad, y: top + 15, 'font-size': 13, 'font-weight': 600, fill: COLORS.text }, g.title));
    // The group's total: a dashed line across its rows.
    svg.append(s('line', { x1: x(g.end), x2: x(g.end), y1: top + headH - 2, y2: top + groupH - 8, stroke: '#94a3b8', 'stroke-dasharray': '4 3' }));
    stages.forEach((st, i) => {
      const y = top + headH + i * rowH;
      const x0 = x(g.start(st)), w = Math.max(1.5, x(g.start(st) + st.seconds) - x0);
      const bottleneck = i === r.bottleneck.index;
      svg.append(s('text', { x: pad, y: y + 11, 'font-size': 11, fill: COLORS.text },
        `${st.name}: ${st.text}${bottleneck ? ' (bottleneck)' : ''}`));
      svg.append(s('rect', { x: x0, y: y + 15, width: w, height: 12, rx: 2, fill: KIND_COLORS[st.kind] || '#94a3b8',
        stroke: bottleneck ? '#c2410c' : 'none', 'stroke-width': bottleneck ? 2.5 : 0,
        'data-stage': i, 'data-group': g.key, 'data-kind': st.kind, 'data-bottleneck': bottleneck ? 'yes' : 'no' }, s('title', {}, `${st.name}: ${st.text}`)));
    });
  });
  extra.replaceChildren(h('h4', {}, 'Stages: in sequence and overlapped'), h('div', { class: 'sb-gantt-box' }, svg));
}

// The bandwidth ladder (tpus.ladder): one bar per level, fastest first, on a log scale (each
// factor of 10 the same length), with how much faster each is than the next.
function drawLadder(r, extra) {
  const rungs = r.ladder || [];
  if (!rungs.length) { extra.replaceChildren(); return; }
  const W = 640, pad = 8, rowH = 40, labelW = 150, PW = W - 2 * pad - labelW - 80;
  const logs = rungs.map((g) => Math.log10(g.bw));
  const lo = Math.floor(Math.min(...logs)) - 1, hi = Math.max(...logs);  // display scale only
  const len = (g) => (PW * (Math.log10(g.bw) - lo)) / (hi - lo);
  const svg = s('svg', { viewBox: `0 0 ${W} ${rungs.length * rowH + 6}`, width: W, height: rungs.length * rowH + 6, role: 'img',
    class: 'sb-ladder', 'aria-label': `bandwidth ladder: ${r.verdict}` });
  rungs.forEach((g, i) => {
    const y = i * rowH + 6;
    svg.append(s('text', { x: pad, y: y + 14, 'font-size': 13, 'font-weight': 600, fill: COLORS.text }, g.name));
    svg.append(s('rect', { x: pad + labelW, y: y + 2, width: Math.max(2, len(g)), height: 16, rx: 2, fill: KIND_COLORS[g.key] || '#94a3b8', 'data-level': g.key }));
    svg.append(s('text', { x: pad + labelW + Math.max(2, len(g)) + 6, y: y + 15, 'font-size': 12, fill: COLORS.text }, fmtQuantity(g.bw, 'B_per_s')));
    const next = rungs[i + 1];
    svg.append(s('text', { x: pad + labelW, y: y + 32, 'font-size': 11, fill: '#5b6573' },
      `${fmtQuantity(r.bytes, 'B')} in ${fmtQuantity(g.seconds, 's')}` + (next ? ` · ${fmtNumber(g.faster_than_next, 2)}x faster than ${next.name}` : '')));
  });
  extra.replaceChildren(h('div', { class: 'sb-ladder-box' }, svg));
}

SbCalc.addRenderer('tpus.transfer', drawStages);
SbCalc.addRenderer('tpus.ladder', drawLadder);

class SbSliceExplorer extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    this.key = widgetKey(this, 'slice');
    this.state = widgetState(this, this.key);
    const saved = this.state.all();
    this.classList.add('sb-widget');
    // For the tests (tests/browser/widgetstate.mjs): its state key, the URL inputs it reads, and
    // data-sb-state once it has drawn.
    this.dataset.sbWidget = this.key;
    this.dataset.sbKeys = 'chip shape wrap from to';
    this.chipSel = h('select', { 'aria-label': 'chip', name: 'chip' });
    this.shapeIn = h('input', { type: 'text', name: 'shape', value: saved.shape || '4x4x4', 'aria-label': 'slice shape', size: 10, spellcheck: 'false' });
    this.wrapSel = h('select', { name: 'wrap', 'aria-label': 'wraparound' },
      h('option', { value: 'auto' }, "the chip's rule"), h('option', { value: 'none' }, 'none (forced)'),
      h('option', { value: 'all' }, 'all axes (forced)'));
    // A link may carry anything: a wraparound that is not an option falls back to the chip's rule.
    this.wrapSel.value = ['auto', 'none', 'all'].includes(saved.wrap) ? saved.wrap : 'auto';
    this.error = h('span', { class: 'sb-field-error sb-widget-error', role: 'alert', id: `${this.key}--shape-err` });
    this.shapeIn.setAttribute('aria-describedby', this.error.id);
    this.summary = h('p', { class: 'sb-slice-summary sb-widget-out' });
    // Why the explorer shows another chip than the page's: a GPU has no ICI torus.
    this.chipNote = h('p', { class: 'sb-notes sb-slice-chip-note', hidden: true });
    this.picture = h('div', { class: 'sb-torus sb-widget-out' });
    this.distance = h('div', { class: 'sb-slice-distance sb-widget-out', 'aria-live': 'polite' });
    this.inventory = h('table', { class: 'sb-results sb-inventory sb-widget-out' });
    this.notes = h('ul', { class: 'sb-notes sb-small sb-muted' });
    this.transfer = h('sb-calc', { name: 'tpus.transfer', id: 'tpus-transfer' });
    const field = (name, label, input, ...after) => h('div', { class: 'sb-field', 'data-field': name },
      h('label', {}, h('span', { class: 'sb-param' }, label), ' ', input), ...after);
    // The shape's error sits in the shape's own field.
    const form = h('div', { class: 'sb-slice-form' }, field('chip', 'chip', this.chipSel),
      field('shape', 'slice shape', this.shapeIn, this.error), field('wrap', 'wraparound', this.wrapSel));
    this.replaceChildren(
      h('p', {}, 'Pick a TPU generation and a slice shape such as 4x4x4 or 16x16. Click one chip, then ' +
        'another, to see how many ICI hops apart they are and the route a message takes.'),
      form, this.chipNote, this.summary, legend(), this.picture, this.distance,
      h('h3', {}, 'Inventory of the slice'), this.inventory, this.notes,
      h('h3', {}, 'Transfer time'),
      h('p', { class: 'sb-muted' }, 'Move bytes over one link or a chain of them; with several stages the ' +
        'lower bound assumes they overlap (the slowest sets the pace) and the upper bound runs them in turn.'),
      h('div', { class: 'sb-shard-presets', role: 'group', 'aria-label': 'routes' }, ROUTES.map((p) =>
        h('button', { type: 'button', class: 'sb-btn sb-route-preset', 'data-route': p.route,
          onclick: () => this.transfer.setInputs({ route: p.route, flops: p.flops ?? 0 }) }, p.label))),
      this.transfer);
    this.from = coords(saved.from);
    this.to = this.from && coords(saved.to);
    const redraw = () => { this.from = null; this.to = null; this.persist(); this.update(); };
    this.shapeIn.addEventListener('input', redraw);
    this.wrapSel.addEventListener('change', () => { this.persist(); this.update(); });
    this.chipSel.addEventListener('change', () => { this.fitShape(); redraw(); });
    this.init(saved.chip);
  }

  async init(savedChip) {
    const [sb, table] = await Promise.all([scaling('tpus'), chipTable()]);
    this.sb = sb;
    const chips = table.chips.filter((c) => c.kind === 'tpu');
    this.chipSel.replaceChildren(...chips.map((c) => h('option', { value: c.id }, c.name)));
    const pick = (id) => (chips.some((c) => c.id === id) ? id : 'v5p');
    this.rank = Object.fromEntries(chips.map((c) => [c.id, c.specs?.torus_dims?.value ?? 2]));
    this.chipSel.value = pick(savedChip || getChip());
    // The page chip may be a GPU, which has no ICI torus: say so, and show a TPU instead.
    const explain = (id) => {
      const other = table.chips.find((c) => c.id === id && c.kind !== 'tpu');
      this.chipNote.hidden = !other;
      if (other) {
        const shown = chips.find((c) => c.id === this.chipSel.value)?.name || this.chipSel.value;
        this.chipNote.textContent = `The page's chip, the ${other.name}, is a GPU: it has no ICI torus ` +
          `(its GPUs talk over NVLink through switches). The explorer shows the ${shown}.`;
      }
    };
    explain(getChip());
    this.chipSel.addEventListener('change', () => explain(getChip()));
    this.fitShape();
    onChip((id) => {
      explain(id);
      if (chips.some((c) => c.id === id) && id !== this.chipSel.value) {
        this.chipSel.value = id;
        this.from = this.to = null;
        this.fitShape();
        this.persist();
        this.update();
      }
    });
    this.update();
  }

  // A shape the chip cannot have (4x4x4 on a 2D v5e) is swapped for a small one of the right rank.
  fitShape() {
    if (!this.sb) return;
    const chip = this.chipSel.value;
    if (this.sb.calc('tpus.inventory', { chip, shape: this.shapeIn.value }).ok) return;
    this.shapeIn.value = (this.rank?.[chip] ?? 2) >= 3 ? '4x4x4' : '4x4';
  }

  persist() {
    this.state.set('chip', this.chipSel.value);
    this.state.set('shape', this.shapeIn.value);
    this.state.set('wrap', this.wrapSel.value === 'auto' ? null : this.wrapSel.value);
    this.state.set('from', this.from ? this.from.join(',') : null);
    this.state.set('to', this.to ? this.to.join(',') : null);
  }

  // The torus in the width the page gives it; redrawn when that width changes (phone rotation).
  // The width is the resize observer's: clientWidth read here, after the page's DOM changed, would
  // lay the whole page out in this task. The first picture comes with the observer's first report.
  drawPicture() {
    if (!this.drawn) return;
    if (!this.resizer && typeof ResizeObserver !== 'undefined') {
      this.resizer = new ResizeObserver(([entry]) => {
        const w = Math.floor(entry.contentRect.width);
        if (!w) return;
        this.pictureWidth = w;
        if (!this.drawnWidth || Math.abs(w - this.drawnWidth) > 40) this.drawPicture();
      });
      this.resizer.observe(this.picture);
    }
    if (this.resizer && !this.pictureWidth) return;
    const avail = this.pictureWidth || this.picture.clientWidth || 1000;
    this.drawnWidth = avail;
    this.picture.replaceChildren(drawTorus(this.drawn.torus, {
      path: this.drawn.path, from: this.from, to: this.to, onPick: (c) => this.pickChip(c), avail,
    }));
  }

  // The transfer calculator builds its form asynchronously: values wait for its first result.
  feedTransfer(values) {
    const t = this.transfer;
    if (t.fields?.size && t.response) { t.setInputs(values); return; }
    this.pendingTransfer = values;
    if (this.waitingTransfer) return;
    this.waitingTransfer = true;
    t.addEventListener('sb-result', () => {
      this.waitingTransfer = false;
      const v = this.pendingTransfer;
      this.pendingTransfer = null;
      if (v) t.setInputs(v);
    }, { once: true });
  }

  pickChip(c) {
    if (!this.from || (this.from && this.to)) { this.from = c; this.to = null; }
    else this.to = c;
    this.persist();
    this.update();
  }

  update() {
    if (!this.sb) return;
    const chip = this.chipSel.value, shape = this.shapeIn.value, wrap = this.wrapSel.value;
    const inv = this.sb.calc('tpus.inventory', { chip, shape });
    if (!inv.ok) {
      this.error.textContent = inv.error.message;
      this.shapeIn.setAttribute('aria-invalid', 'true');
      this.classList.add('sb-stale');
      this.dataset.sbState = 'error';
      return;
    }
    this.error.textContent = '';
    this.shapeIn.removeAttribute('aria-invalid');
    this.classList.remove('sb-stale');
    this.dataset.sbState = 'ok';
    const dims = inv.torus.dims;
    const zero = dims.map(() => 0);
    let topo = null;
    if (this.from && this.from.length === dims.length) {
      topo = this.sb.calc('tpus.topology', { chip, shape, wrap, from: this.from.join(','), to: (this.to || this.from).join(',') });
      if (!topo.ok) { this.from = this.to = null; topo = null; }
    }
    const base = topo || this.sb.calc('tpus.topology', { chip, shape, wrap, from: zero.join(','), to: zero.join(',') });
    if (!base.ok) {
      this.error.textContent = base.error.message;
      this.classList.add('sb-stale');
      this.dataset.sbState = 'error';
      return;
    }
    const torus = base.torus;
    const wrapText = torus.wrap.map((w, i) => `axis ${i}: ${w ? 'ring' : 'line'}`).join(', ');
    this.summary.textContent = `${inv.verdict}. Wraparound: ${wrapText}.`;
    this.summary.dataset.axes = torus.wrap.join(',');
    this.drawn = { torus, path: topo && this.to ? topo.path : [] };
    this.drawPicture();
    if (topo && this.to) {
      const v = topo.values;
      this.distance.replaceChildren(
        h('p', {}, h('strong', {}, `(${this.from.join(',')}) → (${this.to.join(',')}): ${v.hops.text.replace(/ .*/, '')} hop(s)`),
          ` (per axis ${topo.hops_per_axis.join(' + ')}); the farthest two chips of this slice are ${v.max_hops.value} hops apart.`),
        h('p', { class: 'sb-small sb-muted' }, `Route: ${topo.path.map((c) => `(${c.join(',')})`).join(' → ')}. ` +
          `Bisection bandwidth ${v.bisection_bw.text} one way over ${v.bisection_links.value} links.`));
      this.distance.dataset.hops = String(v.hops.value);
      // Hand the pair to the transfer calculator.
      this.feedTransfer({ chip, shape, from: this.from.join(','), to: this.to.join(',') });
    } else {
      this.distance.replaceChildren(h('p', { class: 'sb-muted' }, this.from ? 'Now click a second chip.' : 'Click a chip to start.'));
      delete this.distance.dataset.hops;
      // No pair picked: the calculator gets the slice with its two farthest-apart corners.
      this.feedTransfer({ chip, shape, from: zero.join(','), to: dims.map((d) => d - 1).join(',') });
    }
    const rows = (inv.table || []).map(([label, text]) => h('tr', {}, h('th', { scope: 'row' }, label), h('td', {}, text)));
    this.inventory.replaceChildren(h('tbody', {}, rows));
    this.notes.replaceChildren(...(inv.notes || []).map((n) => h('li', {}, n)));
  }
}

if (!customElements.get('sb-slice-explorer')) customElements.define('sb-slice-explorer', SbSliceExplorer);
