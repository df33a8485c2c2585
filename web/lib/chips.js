// <sb-chip-picker>: the page-wide chip choice (a select of every chip in the tables).
// <sb-chip-table>: every chip from the `chips` op, a table per kind, each figure with its unit
// and the source of the number; "use this chip" sets the page chip.
import { chipTable, getChip, setChip, onChip, h, ensureWidgetStyles } from './core.js';
import { fmtQuantity, unitSymbol } from './format.js';

export class SbChipPicker extends HTMLElement {
  async connectedCallback() {
    if (this.started) return;
    this.started = true;
    ensureWidgetStyles();
    this.classList.add('sb-chip-picker');
    const { chips } = await chipTable();
    const kinds = [...new Set(chips.map((c) => c.kind))];
    const select = h('select', { id: 'sb-page-chip', 'aria-label': 'chip for every widget on the page' },
      kinds.map((k) => h('optgroup', { label: k.toUpperCase() + 's' },
        chips.filter((c) => c.kind === k).map((c) => h('option', { value: c.id }, c.name)))));
    const cur = getChip();
    if (chips.some((c) => c.id === cur)) select.value = cur;
    select.addEventListener('change', () => setChip(select.value));
    onChip((id) => { if (select.value !== id) select.value = id; });
    this.replaceChildren(h('label', { for: select.id }, 'Chip '), select);
  }
}

// Readable names for spec keys; unknown keys are shown with underscores as spaces.
const LABELS = {
  peak_flops_bf16: 'peak bf16', peak_flops_fp8: 'peak fp8', peak_flops_int8: 'peak int8',
  peak_flops_fp32: 'peak fp32', peak_flops_int4: 'peak int4', peak_flops_fp4: 'peak fp4',
  hbm_bytes: 'HBM capacity', hbm_bw: 'HBM bandwidth', ici_bw_oneway: 'ICI bandwidth per link, one way',
  ici_bw_bidi: 'ICI bandwidth per link, both ways', ici_egress_total: 'ICI egress, total', ici_links: 'ICI links',
  ici_hop_latency: 'ICI hop latency', torus_dims: 'torus dimensions', pcie_bw: 'PCIe bandwidth',
  dcn_bw: 'DCN bandwidth', cores_per_chip: 'TensorCores per chip', megacore: 'megacore',
  mxu_size: 'MXU size', mxus_per_core: 'MXUs per core', mxu_flops_bf16: 'MXU bf16 FLOPs/s',
  clock_hz: 'clock', clock_base_hz: 'base clock', clock_tc_estimate_hz: 'tensor-core clock (estimate)',
  vmem_bytes: 'VMEM capacity', vmem_bw: 'VMEM bandwidth', vpu_flops_per_core: 'VPU FLOPs/s per core',
  max_pod: 'largest pod', max_pod_chips: 'chips per pod', cube_chips: 'chips per cube',
  host_shape: 'host shape', chips_per_host: 'chips per host', sms: 'SMs', smem_per_sm: 'SMEM per SM',
  tmem_per_sm: 'TMEM per SM', l2_bytes: 'L2 capacity', l2_bw: 'L2 bandwidth',
  tc_flops_per_cycle: 'tensor-core FLOPs per cycle', nvlink_bw_per_gpu: 'NVLink bandwidth per GPU',
  nvlink_link_bw: 'NVLink bandwidth per link', nvlink_links_per_gpu: 'NVLink links per GPU',
  gpus_per_node: 'GPUs per node', price_per_hour: 'price per hour',
};
export function specLabel(key) {
  return LABELS[key] || key.replace(/_/g, ' ');
}

function specText(key, s) {
  if (s.text !== undefined && s.text !== '') return s.text;
  if (typeof s.value === 'number' && key.endsWith('_hz')) return fmtQuantity(s.value, 'hz');
  if (typeof s.value === 'number') return fmtQuantity(s.value, s.unit);
  return '';
}

export class SbChipTable extends HTMLElement {
  async connectedCallback() {
    if (this.started) return;
    this.started = true;
    ensureWidgetStyles();
    this.classList.add('sb-widget', 'sb-chip-table');
    let data;
    try {
      data = await chipTable();
    } catch (e) {
      this.replaceChildren(h('p', { class: 'sb-error' }, e.message));
      return;
    }
    const kinds = [...new Set(data.chips.map((c) => c.kind))];
    const names = { tpu: 'TPUs', gpu: 'GPUs' };
    const parts = [];
    for (const kind of kinds) {
      const chips = data.chips.filter((c) => c.kind === kind);
      parts.push(this.table(kind, names[kind] || kind, chips, data.sources || {}));
    }
    this.replaceChildren(...parts);
    this.mark(getChip());
    onChip((id) => this.mark(id));
  }

  // Chips as columns (easy to compare), figures as rows; each cell carries a numbered source.
  table(kind, title, chips, about) {
    const keys = [];
    for (const c of chips) for (const k of Object.keys(c.specs)) if (!keys.includes(k)) keys.push(k);
    // Headline figures first (the order of LABELS), then the rest as the tables give them.
    const order = Object.keys(LABELS);
    const rank = (k) => (order.includes(k) ? order.indexOf(k) : order.length + keys.indexOf(k));
    keys.sort((a, b) => rank(a) - rank(b));
    const sources = [];
    const ref = (src) => {
      if (!src) return null;
      let i = sources.indexOf(src);
      if (i < 0) { sources.push(src); i = sources.length - 1; }
      return h('sup', { class: 'sb-src', title: `source: ${src}` }, h('a', { href: `#src-${kind}-${i + 1}` }, `[${i + 1}]`));
    };
    const head = h('tr', {}, h('th', { scope: 'col' }, 'figure'),
      chips.map((c) => h('th', { scope: 'col', 'data-chip': c.id },
        h('div', { class: 'sb-chip-name' }, c.name),
        c.aliases?.length ? h('div', { class: 'sb-muted sb-small' }, c.aliases.join(', ')) : null,
        h('button', { type: 'button', class: 'sb-btn sb-use-chip', 'data-chip': c.id, onclick: () => setChip(c.id) }, 'use this chip'))));
    const rows = keys.map((k) => {
      const unit = k.endsWith('_hz') ? 'hz' : chips.map((c) => c.specs[k]?.unit).find((u) => u) || '';
      return h('tr', { 'data-spec': k },
        h('th', { scope: 'row' }, specLabel(k), h('span', { class: 'sb-muted sb-small' }, unitSymbol(unit) ? ` (${unitSymbol(unit)})` : '')),
        chips.map((c) => {
          const s = c.specs[k];
          if (!s) return h('td', { class: 'sb-muted', 'data-chip': c.id }, '—');
          return h('td', { 'data-chip': c.id, title: s.note || '' }, specText(k, s), ref(s.source), s.note ? h('span', { class: 'sb-note-mark', title: s.note }, '*') : null);
        }));
    });
    const notes = [];
    for (const c of chips) for (const [k, s] of Object.entries(c.specs)) if (s.note) notes.push(h('li', {}, `${c.name}, ${specLabel(k)}: ${s.note}`));
    return h('section', { class: 'sb-chip-kind', 'data-kind': kind },
      h('h2', {}, title),
      h('div', { class: 'sb-table-scroll' }, h('table', { class: 'sb-specs' }, h('thead', {}, head), h('tbody', {}, rows))),
      h('h3', { class: 'sb-small-head' }, 'Sources'),
      h('ol', { class: 'sb-sources' }, sources.map((s, i) => h('li', { id: `src-${kind}-${i + 1}` },
        h('strong', {}, s), about[s] ? ` — ${about[s]}` : ''))),
      notes.length ? h('details', { class: 'sb-spec-notes' }, h('summary', {}, `Notes on the figures (${notes.length}, marked *)`), h('ul', {}, notes)) : null);
  }

  mark(id) {
    for (const el of this.querySelectorAll('[data-chip]')) el.classList.toggle('sb-current-chip', el.dataset.chip === id);
    for (const b of this.querySelectorAll('.sb-use-chip')) {
      b.textContent = b.dataset.chip === id ? 'in use' : 'use this chip';
      b.disabled = b.dataset.chip === id;
    }
  }
}

if (!customElements.get('sb-chip-picker')) customElements.define('sb-chip-picker', SbChipPicker);
if (!customElements.get('sb-chip-table')) customElements.define('sb-chip-table', SbChipTable);
