// <sb-chip-picker>: the page-wide chip choice (a select of every chip in the tables).
// <sb-chip-table>: every chip from the `chips` op, a table per kind, each figure with its unit
// and the source of the number; "use this chip" sets the page chip.
import { chipTable, getChip, setChip, onChip, h, ensureWidgetStyles } from './core.js';
import { fmtQuantity, loadUnits, unitSymbol } from './format.js';

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

// A figure's name in words: chips.json "labels" (the `chips` response), else its key.
export function specLabel(key, labels) {
  return labels?.[key] || key;
}

function specText(s) {
  if (s.value === null) return 'not known';  // stated unknown: its note says why
  if (s.text !== undefined && s.text !== '') return s.text;
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
      [data] = await Promise.all([chipTable(), loadUnits()]);
    } catch (e) {
      this.replaceChildren(h('p', { class: 'sb-error' }, e.message));
      return;
    }
    const kinds = [...new Set(data.chips.map((c) => c.kind))];
    const names = { tpu: 'TPUs', gpu: 'GPUs' };
    const parts = [];
    for (const kind of kinds) {
      const chips = data.chips.filter((c) => c.kind === kind);
      parts.push(this.table(kind, names[kind] || kind, chips, data.sources || {}, data.labels || {}));
    }
    this.replaceChildren(...parts);
    this.mark(getChip());
    onChip((id) => this.mark(id));
  }

  // Chips as columns (easy to compare), figures as rows; each cell carries a numbered source.
  table(kind, title, chips, about, labels) {
    const keys = [];
    for (const c of chips) for (const k of Object.keys(c.specs)) if (!keys.includes(k)) keys.push(k);
    // In the order of the labels (headline figures first), then the rest as the tables give them.
    const order = Object.keys(labels);
    const rank = (k) => (order.includes(k) ? order.indexOf(k) : order.length + keys.indexOf(k));
    keys.sort((a, b) => rank(a) - rank(b));
    const sources = [];
    const ref = (src) => {
      if (!src) return null;
      let i = sources.indexOf(src);
      if (i < 0) { sources.push(src); i = sources.length - 1; }
      return h('sup', { class: 'sb-src', title: `source: ${about[src] || src}` }, h('a', { href: `#src-${kind}-${i + 1}` }, `[${i + 1}]`));
    };
    const head = h('tr', {}, h('th', { scope: 'col' }, 'figure'),
      chips.map((c) => h('th', { scope: 'col', 'data-chip': c.id },
        h('div', { class: 'sb-chip-name' }, c.name),
        c.aliases?.length ? h('div', { class: 'sb-muted sb-small' }, c.aliases.join(', ')) : null,
        h('button', { type: 'button', class: 'sb-btn sb-use-chip', 'data-chip': c.id, onclick: () => setChip(c.id) }, 'use this chip'))));
    const rows = keys.map((k) => {
      const unit = chips.map((c) => c.specs[k]?.unit).find((u) => u) || '';
      return h('tr', { 'data-spec': k },
        h('th', { scope: 'row' }, specLabel(k, labels), h('span', { class: 'sb-muted sb-small' }, unitSymbol(unit) ? ` (${unitSymbol(unit)})` : '')),
        chips.map((c) => {
          const s = c.specs[k];
          if (!s) return h('td', { class: 'sb-muted', 'data-chip': c.id }, '—');
          return h('td', { 'data-chip': c.id, title: s.note || '' }, specText(s), ref(s.source), s.note ? h('span', { class: 'sb-note-mark', title: s.note }, '*') : null);
        }));
    });
    const notes = [];
    for (const c of chips) for (const [k, s] of Object.entries(c.specs)) if (s.note) notes.push(h('li', {}, `${c.name}, ${specLabel(k, labels)}: ${s.note}`));
    return h('section', { class: 'sb-chip-kind', 'data-kind': kind },
      h('h2', {}, title),
      h('div', { class: 'sb-table-scroll' }, h('table', { class: 'sb-specs' }, h('thead', {}, head), h('tbody', {}, rows))),
      h('h3', { class: 'sb-small-head' }, 'Sources'),
      // Where in the book (chips.json "sources": the Part, its title and which table or text).
      h('ol', { class: 'sb-sources' }, sources.map((s, i) => h('li', { id: `src-${kind}-${i + 1}` }, about[s] || s))),
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
