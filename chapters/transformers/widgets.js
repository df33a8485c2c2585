// Chapter widgets of the transformers page (its content: chapters/transformers/page.html); the
// site serves this file as widgets/transformers.js. The page shell (one exercise per problem)
// comes from lib/page.js. Every number shown comes from the chapter's module:
//
// - the four model calculators (transformers.accounting, .context, .kv_cache, .activations) are
//   <sb-calc> elements of page.html; renderers below draw their breakdowns and curves, and fold
//   their configuration fields (0 = the model's value) into a "configuration" box;
// - <sb-model-picker>: the page's model. Picking one (there, or "load" in the model table) loads
//   it into every model calculator, as the chip picker does for chips; the choice is part of the
//   page's address (`model=`), so a shared link opens on the same model;
// - <sb-model-table>: the model table (transformers.models), sortable, one row per model with its
//   config and what the chapter's formulas derive, its conventions and the published figures.
import '../lib/page.js';
import {
  SbCalc, logLogPlot, fmtQuantity, fmtNumber, h, scaling, getModel, setModel, loadUnits,
} from '../lib/widgets.js';

const MODEL_CALCS = ['transformers.accounting', 'transformers.context', 'transformers.kv_cache', 'transformers.activations'];
// The configuration inputs every model calculator shares, in the order of the schema.
const CONFIG_NUMBERS = ['L', 'D', 'F', 'N', 'K', 'H', 'V', 'E', 'k', 'F_e', 'n_shared', 'n_dense'];
const CONFIG_CHOICES = ['gated', 'tied', 'norms'];
const CONFIG_FIELDS = [...CONFIG_NUMBERS, ...CONFIG_CHOICES];
const COLORS = { total: '#bfd3f2', active: '#1f5fbf', flops: '#15803d', mem: ['#1f5fbf', '#7e22ce', '#0e7490', '#c2410c'] };

// The page's styles are in chapters/transformers/page.css (the site links it from this page).

// ---------------------------------------------------------------- the page's model

// The model table's rows (transformers.models), computed once per page.
let tableRows = null;
async function modelRows() {
  if (!tableRows) {
    tableRows = (async () => {
      await loadUnits();
      const sb = await scaling('transformers');
      const r = sb.calc('transformers.models', {});
      if (!r.ok) throw new Error(r.error.message);
      return r.models;
    })();
    tableRows.catch(() => { tableRows = null; });
  }
  return tableRows;
}

// The page's model is the library's (lib/core.js getModel / setModel): every calculator with a
// model field follows it, and the address and the next chapter carry it.
const pageModel = () => getModel();

// The values a calculator's configuration fields take for `config` (its effective configuration):
// used when the reader turns a model into a custom one to edit it.
function customValues(config) {
  const out = {};
  for (const k of CONFIG_NUMBERS) out[k] = String(config[k] ?? 0);
  out.gated = config.gated ? 'yes' : 'no';
  out.tied = config.tied ? 'yes' : 'no';
  out.norms = [0, 1, 2, 4].includes(config.norms_per_layer) ? String(config.norms_per_layer) : 'model';
  return out;
}

// Loads a model into every model calculator: the model id, every configuration field back to the
// model's own (0, "model"); for "custom", the fields of the configuration each one shows now.
function loadModel(id) {
  for (const calc of document.querySelectorAll('sb-calc')) {
    if (!MODEL_CALCS.includes(calc.name) || !calc.fields?.size) continue;
    const values = id === 'custom' && calc.response?.ok && calc.response.config
      ? customValues(calc.response.config) : null;
    for (const k of CONFIG_FIELDS) {
      const f = calc.fields.get(k);
      if (!f) continue;
      f.input.value = values ? values[k] : (CONFIG_CHOICES.includes(k) ? 'model' : '0');
      calc.state.set(k, values ? values[k] : null);
    }
    if (id === 'custom') {
      calc.setInputs({ model: id });
    } else {
      const mf = calc.fields.get('model');
      if (mf) { mf.input.value = id; calc.state.set('model', null); }
      calc.runSoon();  // each calculator in a task of its own
    }
  }
  if (id === 'custom') document.dispatchEvent(new CustomEvent('sb-model', { detail: { model: id } }));
  else setModel(id);  // every model calculator takes it (lib/calc.js), the address too
}

// <sb-model-picker>: the page's model, for every model calculator at once.
class SbModelPicker extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    this.classList.add('sb-widget');
    this.select = h('select', { name: 'model', 'aria-label': 'model' }, h('option', { value: '' }, 'Loading the models…'));
    this.status = h('span', { class: 'sb-muted sb-small' });
    this.replaceChildren(h('div', { class: 'sb-model-picker-row' },
      h('label', {}, h('strong', {}, 'Model '), this.select), this.status));
    this.select.addEventListener('change', () => { if (this.select.value) loadModel(this.select.value); });
    document.addEventListener('sb-model', (e) => this.show(e.detail.model));
    modelRows().then((rows) => {
      this.select.replaceChildren(
        ...rows.map((m) => h('option', { value: m.id }, m.nominal_text ? `${m.name} (${m.nominal_text})` : m.name)),
        h('option', { value: 'custom' }, 'custom: edit the configuration'));
      this.show(pageModel() || document.querySelector('sb-calc[name="transformers.accounting"]')?.inputs?.().model || 'llama-3-70b');
    }, (e) => { this.status.textContent = `The model table did not load: ${e.message}`; });
  }

  show(id) {
    if ([...this.select.options].some((o) => o.value === id)) this.select.value = id;
    this.status.textContent = id === 'custom'
      ? 'Each calculator keeps the configuration it showed; change any field below it.'
      : 'Loaded into every calculator on this page; change a field of a calculator to depart from it.';
  }
}
customElements.define('sb-model-picker', SbModelPicker);

// ---------------------------------------------------------------- shared pieces of the renderers

// A parameter count as the book writes it (70.55B), in the core's form for the unit params.
const fmtParams = (v) => fmtQuantity(v, 'params');

// The model calculators' configuration fields go into a closed box under the model field.
function foldConfig(calc) {
  if (calc.folded || !calc.fields?.size) return;
  calc.folded = true;
  const grid = h('div', { class: 'sb-tf-config-grid' });
  for (const k of CONFIG_FIELDS) {
    const f = calc.fields.get(k);
    const el = f && f.input.closest('.sb-field');
    if (el) grid.append(el);
  }
  const box = h('details', { class: 'sb-tf-config' }, h('summary', {}, 'Configuration (0 or “model”: the model’s own value)'), grid);
  const modelField = calc.fields.get('model')?.input.closest('.sb-field');
  modelField?.after(box);
}

// "LLaMA 3 70B: L 80 · D 8192 · ..." and the conventions where it differs from the book's model.
function usingLine(r) {
  const c = r.config || {};
  const parts = ['L', 'D', 'F', 'N', 'K', 'H', 'V'].map((k) => `${k} ${fmtNumber(c[k], 6)}`);
  if (c.E > 0) parts.push(`E ${c.E}`, `k ${c.k}`);
  const box = h('div', { class: 'sb-tf-using', 'data-model': r.model?.id || '' },
    h('strong', {}, r.model?.name || ''), ': ', parts.join(' · '));
  return box;
}

// Horizontal bars: rows of {label, value, inner?} against the largest value.
function bars(title, rows, fmt, legend) {
  const max = Math.max(...rows.map((r) => r.value), 1e-300);
  const out = h('div', { class: 'sb-tf-bars' }, h('h4', {}, title));
  if (legend) out.append(legend);
  for (const r of rows) {
    const track = h('div', { class: 'sb-tf-bar-track' });
    const outer = h('div', { class: 'sb-tf-bar' });
    outer.style.width = `${Math.max(0.3, (100 * r.value) / max)}%`;
    outer.style.background = r.color || COLORS.total;
    track.append(outer);
    if (r.inner !== undefined && r.inner !== r.value) {
      const inner = h('div', { class: 'sb-tf-bar' });
      inner.style.width = `${Math.max(0.3, (100 * r.inner) / max)}%`;
      inner.style.background = COLORS.active;
      track.append(inner);
    }
    out.append(h('div', { class: 'sb-tf-bar-row', 'data-key': r.key },
      h('span', {}, r.label), track, h('span', { class: 'sb-tf-bar-value' }, fmt(r.value))));
  }
  return out;
}

const swatch = (color, label) => h('span', {}, (() => { const s = h('span', { class: 'sb-tf-swatch' }); s.style.background = color; return s; })(), label);

// ---------------------------------------------------------------- transformers.accounting

SbCalc.addRenderer('transformers.accounting', (r, extra, calc) => {
  foldConfig(calc);
  const b = r.breakdown;
  const moe = b.params.some((p) => p.active !== p.total);
  const params = bars('Parameters by component', b.params.map((p) => ({
    key: p.key, label: p.label, value: p.total, inner: moe ? p.active : undefined,
  })), fmtParams, moe ? h('div', { class: 'sb-tf-legend' }, swatch(COLORS.total, 'stored'), swatch(COLORS.active, 'used by one token')) : null);
  const flops = bars(`Training FLOPs per token at T = ${fmtNumber(calc.response.inputs.T, 6)}`,
    b.flops.map((f) => ({ key: f.key, label: f.label, value: f.per_token, color: COLORS.flops })),
    (v) => fmtQuantity(v, 'flop'));
  const parts = [usingLine(r), h('div', { class: 'sb-tf-charts' }, params, flops)];
  if (r.published?.length) {
    parts.push(h('table', { class: 'sb-tf-small-table' },
      h('thead', {}, h('tr', {}, h('th', {}, 'the makers state'), h('th', {}, 'computed here'), h('th', {}, 'ratio'))),
      h('tbody', {}, r.published.map((p) => h('tr', {},
        h('td', {}, `${p.what.replaceAll('_', ' ')}: ${p.text}`), h('td', {}, fmtParams(p.computed)),
        h('td', {}, fmtNumber(p.computed_over_published, 4)))))));
  }
  extra.replaceChildren(...parts);
});

// ---------------------------------------------------------------- transformers.context

SbCalc.addRenderer('transformers.context', (r, extra, calc) => {
  foldConfig(calc);
  const c = r.curve, m = r.markers;
  // Markers join the curve's x values; the curves skip them (null) and span the gap.
  const xs = [...c.T];
  const at = (x) => { xs.push(x); return x; };
  const tx = at(m.crossover), t8 = at(m.crossover_8d), tt = at(m.T);
  const idx = xs.map((x, i) => i).sort((a, b) => xs[a] - xs[b]);
  const sorted = idx.map((i) => xs[i]);
  const pick = (ys, extraYs) => idx.map((i) => (i < c.T.length ? ys[i] : extraYs[i - c.T.length]));
  const ratio = pick(c.ratio, [null, null, null]);
  const time = pick(c.time_ratio, [null, null, null]);
  const markT = pick(c.T.map(() => null), [1, null, null]);
  const mark8 = pick(c.T.map(() => null), [null, m.ratio_at_8d, null]);
  const markNow = pick(c.T.map(() => null), [null, null, r.values.ratio.value]);
  const series1 = [
    { label: 'attention core / other matmuls (FLOPs)', ys: ratio },
    { label: 'attention / MLP (roofline time, prefill)', ys: time, dash: [6, 4] },
    { label: `exact crossover T* = ${fmtNumber(tx, 5)}`, ys: markT, points: true, stroke: '#c2410c' },
    { label: `book: 8D = ${fmtNumber(t8, 5)}`, ys: mark8, points: true, stroke: '#7e22ce' },
    { label: `T = ${fmtNumber(tt, 5)}`, ys: markNow, points: true, stroke: '#111827', size: 8 },
  ];
  const series2 = [
    { label: 'prefill (S = T)', ys: pick(c.intensity_prefill, [null, null, null]) },
    { label: 'decode one token (S = T)', ys: pick(c.intensity_decode, [null, null, null]) },
    { label: `chip: I_hw = ${fmtNumber(m.i_hw, 4)}`, ys: sorted.map(() => m.i_hw), stroke: '#6b7280', dash: [4, 4] },
  ];
  if (!extra.built) {
    extra.built = true;
    extra.using = h('div');
    extra.p1 = h('div', { class: 'sb-tf-plot', 'data-plot': 'ratio' });
    extra.p2 = h('div', { class: 'sb-tf-plot', 'data-plot': 'intensity' });
    extra.replaceChildren(extra.using,
      h('h4', {}, 'Attention against the rest of the layer, by context length'), extra.p1,
      h('h4', {}, 'Arithmetic intensity of the attention core against the chip'), extra.p2);
  }
  extra.using.replaceChildren(usingLine(r));
  const o1 = { xs: sorted, series: series1, xLabel: 'context T (tokens)', yLabel: 'ratio', xUnit: 'tokens', yUnit: 'ratio', height: 300 };
  const o2 = { xs: sorted, series: series2, xLabel: 'context T (tokens)', yLabel: 'FLOPs per byte', xUnit: 'tokens', yUnit: 'flop_per_B', height: 260 };
  if (!extra.plot1) {
    extra.plot1 = logLogPlot(extra.p1, o1);
    extra.plot2 = logLogPlot(extra.p2, o2);
  } else {
    extra.plot1.update(o1);
    extra.plot2.update(o2);
  }
  extra.p1.dataset.crossover = String(tx);
  extra.p1.dataset.crossover8d = String(t8);
});

// ---------------------------------------------------------------- transformers.kv_cache

SbCalc.addRenderer('transformers.kv_cache', (r, extra, calc) => {
  foldConfig(calc);
  const v = r.values;
  const left = v.hbm.value - v.weights.value;
  const series = [{ label: 'KV cache of one sequence', ys: r.curve.bytes }];
  if (left > 0) series.push({ label: `HBM left beside the weights (${fmtQuantity(left, 'B')})`, ys: r.curve.S.map(() => left), stroke: '#6b7280', dash: [4, 4] });
  const o = { xs: r.curve.S, series, xLabel: 'tokens in the sequence S', yLabel: 'bytes', xUnit: 'tokens', yUnit: 'B', height: 260 };
  if (!extra.built) {
    extra.built = true;
    extra.using = h('div');
    extra.box = h('div', { class: 'sb-tf-plot', 'data-plot': 'kv' });
    extra.replaceChildren(extra.using, h('h4', {}, 'Bytes of one sequence against its length'), extra.box);
  }
  extra.using.replaceChildren(usingLine(r));
  if (!extra.plot) extra.plot = logLogPlot(extra.box, o);
  else extra.plot.update(o);
});

// ---------------------------------------------------------------- transformers.activations

const POLICY_NAMES = { save_all: 'every intermediate', big_matmuls: 'big matmul outputs', block: 'block input only' };

SbCalc.addRenderer('transformers.activations', (r, extra, calc) => {
  foldConfig(calc);
  const total = r.bars.reduce((s, b) => s + b.bytes, 0);
  const stack = h('div', { class: 'sb-tf-stack', role: 'img', 'aria-label': 'memory by kind' });
  const legend = h('div', { class: 'sb-tf-legend' });
  r.bars.forEach((b, i) => {
    const seg = h('span', { 'data-key': b.key, title: `${b.label}: ${fmtQuantity(b.bytes, 'B')}` });
    seg.style.width = `${(100 * b.bytes) / total}%`;
    seg.style.background = COLORS.mem[i % COLORS.mem.length];
    stack.append(seg);
    legend.append(swatch(COLORS.mem[i % COLORS.mem.length], `${b.label} ${fmtQuantity(b.bytes, 'B')}`));
  });
  const policy = calc.response.inputs.policy;
  const table = h('table', { class: 'sb-tf-small-table' },
    h('thead', {}, h('tr', {}, h('th', {}, 'policy'), h('th', {}, 'arrays per layer'), h('th', {}, 'saved activations'), h('th', {}, 'FLOPs per parameter per token'))),
    h('tbody', {}, r.policies.map((p) => h('tr', { class: p.policy === policy ? 'sb-tf-current' : null, 'data-policy': p.policy },
      h('td', {}, POLICY_NAMES[p.policy] || p.policy), h('td', {}, fmtNumber(p.arrays, 4)),
      h('td', {}, fmtQuantity(p.bytes, 'B')), h('td', {}, fmtNumber(p.flops_per_param_token, 3))))));
  extra.replaceChildren(usingLine(r), h('h4', {}, `Training memory: ${fmtQuantity(total, 'B')} in all`), stack, legend,
    h('h4', {}, 'The policies side by side'), table);
});

// ---------------------------------------------------------------- <sb-model-table>

const COLUMNS = [
  { key: 'name', label: 'model', text: true },
  { key: 'L', label: 'L', get: (m) => m.config.L },
  { key: 'D', label: 'D', get: (m) => m.config.D },
  // An MoE's F is one expert's width (the calculators' F is its dense layers'): said in the cell.
  { key: 'F', label: 'F', get: (m) => m.config.F_e > 0 ? m.config.F_e : m.config.F, title: 'MLP width (per expert for MoE)',
    show: (m) => (m.config.F_e > 0 ? [fmtNumber(m.config.F_e, 6), h('span', { class: 'sb-tf-sub' }, 'per expert')] : fmtNumber(m.config.F, 6)) },
  { key: 'N', label: 'N', get: (m) => m.config.N },
  { key: 'K', label: 'K', get: (m) => m.config.K },
  { key: 'H', label: 'H', get: (m) => m.config.H },
  { key: 'V', label: 'V', get: (m) => m.config.V },
  { key: 'E', label: 'experts', get: (m) => m.config.E || 0, show: (m) => (m.config.E ? `${m.config.k} of ${m.config.E}` : '—') },
  { key: 'params_total', label: 'params (computed)', get: (m) => m.params_total, show: (m) => fmtParams(m.params_total) },
  // The name's size, with the computed total over it beneath (amber where they differ by over 10%).
  { key: 'nominal', label: 'nominal', get: (m) => m.nominal, title: 'the size in the model’s name; beneath it, computed / nominal',
    show: (m) => (m.total_over_nominal ? [m.nominal_text, h('span', { class: 'sb-tf-sub' }, `× ${fmtNumber(m.total_over_nominal, 3)}`)] : m.nominal_text || '—') },
  { key: 'params_active', label: 'active', get: (m) => m.params_active, show: (m) => fmtParams(m.params_active) },
  { key: 'flops_per_token', label: 'train FLOPs/token', get: (m) => m.flops_per_token, show: (m) => fmtQuantity(m.flops_per_token, 'flop'), title: '6 x the matmul weights one token uses + the attention core at T' },
  { key: 'kv_bytes_per_token', label: 'KV / token', get: (m) => m.kv_bytes_per_token, show: (m) => fmtQuantity(m.kv_bytes_per_token, 'B'), title: 'every layer keeps the token (a context within any window)' },
  { key: 'kv_bytes_per_token_at_T', label: 'KV / token at T', get: (m) => m.kv_bytes_per_token_at_T, show: (m) => fmtQuantity(m.kv_bytes_per_token_at_T, 'B'), title: 'averaged over a context of T tokens: sliding windows keep fewer' },
];

// The table as a renderer of its <sb-calc name="transformers.models"> (whose form sets the KV
// element type and the context T).
SbCalc.addRenderer('transformers.models', (r, extra, calc) => {
  const el = calc.closest('sb-model-table');
  if (el) el.render(r, extra);
});

class SbModelTable extends HTMLElement {
  connectedCallback() {
    if (this.built) return;
    this.built = true;
    this.sort = { key: null, dir: 1 };
    this.open = new Set();
    this.append(h('sb-calc', { name: 'transformers.models', id: 'models' }));
    document.addEventListener('sb-model', () => this.last && this.render(...this.last));
  }

  render(r, extra) {
    this.last = [r, extra];
    const current = pageModel() || document.querySelector('sb-calc[name="transformers.accounting"]')?.response?.model?.id;
    let rows = [...r.models];
    if (this.sort.key) {
      const col = COLUMNS.find((c) => c.key === this.sort.key);
      rows.sort((a, b) => (col.text ? a.name.localeCompare(b.name) : col.get(a) - col.get(b)) * this.sort.dir);
    }
    const head = h('tr', {}, COLUMNS.map((c) => h('th', {
      scope: 'col', title: c.title || null, 'data-col': c.key,
      'aria-sort': this.sort.key === c.key ? (this.sort.dir > 0 ? 'ascending' : 'descending') : null,
    }, h('button', { type: 'button', onclick: () => this.sortBy(c.key) }, c.label))));
    const body = [];
    for (const m of rows) {
      const load = h('button', { type: 'button', class: 'sb-btn sb-use-chip', 'data-load': m.id, onclick: () => loadModel(m.id) }, 'load');
      const more = h('button', {
        type: 'button', class: 'sb-btn sb-use-chip', 'data-more': m.id, 'aria-expanded': this.open.has(m.id) ? 'true' : 'false',
        onclick: () => { if (this.open.has(m.id)) this.open.delete(m.id); else this.open.add(m.id); this.render(r, extra); },
      }, 'details');
      const cells = COLUMNS.map((c) => {
        if (c.key === 'name') {
          // A Hugging Face id links to its config.json; the book's own presets have none.
          const src = m.config_source.includes('/')
            ? h('a', { class: 'sb-tf-src', href: `https://huggingface.co/${m.config_source}/blob/main/config.json`, rel: 'noopener' }, m.config_source)
            : h('span', { class: 'sb-tf-src' }, m.config_source);
          return h('td', {}, h('span', { class: 'sb-tf-name' }, m.name), src, h('span', { class: 'sb-tf-row-actions' }, load, ' ', more));
        }
        const off = c.key === 'nominal' && m.total_over_nominal && Math.abs(Math.log(m.total_over_nominal)) > Math.log(1.1);
        return h('td', { class: off ? 'sb-tf-off' : null }, c.show ? c.show(m) : fmtNumber(c.get(m), 6));
      });
      body.push(h('tr', { 'data-model': m.id, class: m.id === current ? 'sb-tf-current' : null }, cells));
      if (this.open.has(m.id)) body.push(h('tr', { class: 'sb-tf-details', 'data-details': m.id }, h('td', { colspan: COLUMNS.length }, this.details(m))));
    }
    const table = h('table', { class: 'sb-models' }, h('thead', {}, head), h('tbody', {}, body));
    extra.replaceChildren(h('div', { class: 'sb-table-scroll' }, table),
      h('p', { class: 'sb-muted sb-small' }, 'Counts follow the book (A.3): L (attention + MLP + norms) + vocabulary, with each model’s own conventions; ',
        'beneath the nominal size, the computed total over it: a name can leave a component out (above 1) or count one twice (below 1: Mixtral’s 8x7B counts eight whole 7B models, though its experts share attention and the vocabulary). Click a heading to sort, “load” to use the model in every calculator above.'));
  }

  details(m) {
    const cfg = Object.entries(m.config).map(([k, v]) => h('li', {}, h('code', {}, k), ` = ${typeof v === 'boolean' ? (v ? 'yes' : 'no') : fmtNumber(v, 8)}`,
      h('span', { class: 'sb-muted' }, `  (${m.config_keys[k] || ''})`)));
    const parts = [h('strong', {}, 'Config fields and their config.json keys'), h('ul', {}, cfg)];
    if (m.conventions.length) parts.push(h('strong', {}, 'Where it differs from the book’s plain transformer'), h('ul', {}, m.conventions.map((c) => h('li', {}, c))));
    if (m.notes.length) parts.push(h('strong', {}, 'Notes'), h('ul', {}, m.notes.map((n) => h('li', {}, n))));
    if (m.published.length) {
      parts.push(h('strong', {}, 'Published figures'), h('ul', {}, m.published.map((p) =>
        h('li', {}, `${p.what.replaceAll('_', ' ')}: ${p.text} (${p.source}); computed ${fmtParams(p.computed)}, ratio ${fmtNumber(p.computed_over_published, 4)}`))));
    }
    if (m.params_mtp) parts.push(h('p', {}, `Multi-token prediction, not counted in the total: ${fmtParams(m.params_mtp)}`));
    return parts;
  }

  sortBy(key) {
    this.sort = this.sort.key === key ? { key, dir: -this.sort.dir } : { key, dir: key === 'name' ? 1 : -1 };
    if (this.last) this.render(...this.last);
  }
}
customElements.define('sb-model-table', SbModelTable);
