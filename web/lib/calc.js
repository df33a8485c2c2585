// <sb-calc name="roofline.matmul">: a calculator form generated from the calculator's schema.
// Live recompute; results table, verdict, notes, errors next to their field, derivation (KaTeX).
// Extension: listen for 'sb-result' (detail {name, inputs, response}) or register a renderer:
//   SbCalc.addRenderer('roofline.matmul', (response, extraEl, calcEl) => { ...plot... })
//   calcEl.addRenderer(fn) for one instance. Renderers draw into calcEl.extra (below the results).
import {
  scaling, calculatorInfo, chipTable, getChip, onChip, widgetState, widgetKey, h, debounce,
  fieldName, ensureWidgetStyles,
} from './core.js';
import {
  fmtNumber, fmtValue, loadUnits, unitExample, unitHasPrefixes, unitSymbol, derivationToggle,
} from './format.js';

const renderers = new Map();  // calculator name -> [fn]

export class SbCalc extends HTMLElement {
  static addRenderer(name, fn) {
    if (!renderers.has(name)) renderers.set(name, []);
    renderers.get(name).push(fn);
    for (const el of document.querySelectorAll('sb-calc')) if (el.name === name && el.response) el.rerender();
  }

  constructor() {
    super();
    this.fields = new Map();   // param name -> {param, input, error}
    this.own = [];             // instance renderers
    this.response = null;
    this.recompute = debounce(() => this.run(), 120);
  }

  get name() { return this.getAttribute('name') || ''; }
  get key() { return widgetKey(this, this.name); }

  addRenderer(fn) {
    this.own.push(fn);
    if (this.response?.ok) this.rerender();
  }

  async connectedCallback() {
    if (this.started) return;
    this.started = true;
    ensureWidgetStyles();
    this.classList.add('sb-widget', 'sb-calc');
    this.replaceChildren(h('p', { class: 'sb-muted' }, 'Loading calculator…'));
    try {
      await this.setup();
    } catch (e) {
      this.replaceChildren(h('p', { class: 'sb-error' }, `Calculator ${this.name} could not load: ${e.message}`));
    }
  }

  async setup() {
    // The catalogue first: an unknown name needs no module. Then the module of the calculator's
    // chapter (the one that lists it), the chip tables and the unit table, side by side.
    const info = await calculatorInfo(this.name);
    if (!info) {
      this.replaceChildren(h('p', { class: 'sb-error' }, `No calculator named "${this.name}".`));
      return;
    }
    this.info = info;
    const [sb, table] = await Promise.all([scaling(info.chapter), chipTable(), loadUnits()]);
    this.sb = sb;
    const chips = table.chips;
    this.state = widgetState(this, this.key);
    const saved = this.state.all();
    const form = h('form', { class: 'sb-form', onsubmit: (e) => e.preventDefault() });
    for (const p of info.params) form.append(this.field(p, saved[p.name], chips));
    this.formError = h('p', { class: 'sb-error sb-form-error', role: 'alert', hidden: true });
    this.verdict = h('p', { class: 'sb-verdict', 'aria-live': 'polite' });
    this.results = h('table', { class: 'sb-results' });
    this.notes = h('ul', { class: 'sb-notes' });
    this.extra = h('div', { class: 'sb-calc-extra' });
    this.derivation = derivationToggle(() => this.response?.ok ? this.response.trace : null);
    this.replaceChildren(
      h('header', { class: 'sb-widget-head' }, h('h3', {}, info.title), info.doc ? h('p', { class: 'sb-doc' }, info.doc) : null),
      h('div', { class: 'sb-calc-body' }, form,
        h('div', { class: 'sb-calc-out' }, this.formError, this.verdict, this.results, this.notes)),
      this.extra, this.derivation);
    this.unfollow = onChip((chip) => {
      const f = this.fields.get('chip');
      if (f && f.input.value !== chip && [...f.input.options].some((o) => o.value === chip)) {
        f.input.value = chip;
        this.state.set('chip', null);  // following the page chip again
        this.run();
      }
    });
    this.run();
  }

  disconnectedCallback() { this.unfollow?.(); }

  // One input per parameter: numbers as text (units allowed), choices and the chip as selects.
  field(p, saved, chips) {
    const id = `${this.key}--${p.name}`.replace(/[^A-Za-z0-9_-]/g, '_');
    let input;
    const isChip = p.name === 'chip';
    if (isChip || p.kind === 'choice') {
      const options = isChip ? chips.map((c) => [c.id, c.name]) : (p.choices || []).map((c, i) => [c, p.labels?.[i] ?? c]);
      input = h('select', { id, name: p.name }, options.map(([v, t]) => h('option', { value: v }, t)));
      const want = saved ?? (isChip ? getChip() : p.default);
      if (options.some(([v]) => v === want)) input.value = want;
      else if (isChip && options.some(([v]) => v === p.default)) input.value = p.default;
    } else {
      input = h('input', {
        id, name: p.name, type: 'text', inputmode: p.kind === 'number' ? 'decimal' : 'text',
        autocomplete: 'off', spellcheck: 'false',
        placeholder: p.kind === 'number' ? unitExample(p.unit) : '',
      });
      input.value = saved ?? (p.kind === 'number' ? this.defaultText(p) : (p.default ?? ''));
    }
    const error = h('span', { class: 'sb-field-error', role: 'alert', id: `${id}--err` });
    input.setAttribute('aria-describedby', error.id);
    input.addEventListener(input.tagName === 'SELECT' ? 'change' : 'input', () => {
      this.state.set(p.name, input.value);
      this.recompute();
    });
    this.fields.set(p.name, { param: p, input, error });
    const unit = p.kind === 'number' && unitSymbol(p.unit) ? h('span', { class: 'sb-unit' }, unitSymbol(p.unit)) : null;
    return h('div', { class: 'sb-field', 'data-field': p.name },
      h('label', { for: id, title: p.doc || '' }, h('span', { class: 'sb-param' }, p.name), p.doc ? h('span', { class: 'sb-param-doc' }, p.doc) : null),
      h('div', { class: 'sb-input' }, input, unit), error);
  }

  // A number's default in the box: as the core writes it where its unit takes a prefix ("820 GB/s");
  // else the plain number ("8192", "1.97e14"), its unit being beside the box.
  defaultText(p) {
    if (unitHasPrefixes(p.unit) && p.default_text) return p.default_text;
    return typeof p.default === 'number' ? fmtNumber(p.default, 15) : String(p.default ?? '');
  }

  // Current inputs as sent to the module: text as typed (the core parses units); empty = default.
  inputs() {
    const out = {};
    for (const [name, f] of this.fields) {
      const v = f.input.value.trim();
      if (v !== '') out[name] = v;
    }
    return out;
  }

  // Sets inputs programmatically (chapter widgets, tests) and recomputes.
  setInputs(values) {
    for (const [k, v] of Object.entries(values)) {
      const f = this.fields.get(k);
      if (f) { f.input.value = String(v); this.state?.set(k, String(v)); }
    }
    this.run();
  }

  run() {
    // setInputs() may arrive before the form is built; the first run after the build catches up.
    if (!this.sb || !this.formError) return;
    const inputs = this.inputs();
    const r = this.sb.calc(this.name, inputs);
    this.response = r;
    for (const f of this.fields.values()) { f.error.textContent = ''; f.input.removeAttribute('aria-invalid'); }
    this.formError.hidden = true;
    if (!r.ok) {
      const f = this.fields.get(fieldName(r.error.field));
      if (f) {
        f.error.textContent = r.error.message;
        f.input.setAttribute('aria-invalid', 'true');
      } else {
        this.formError.textContent = r.error.message;
        this.formError.hidden = false;
      }
      this.classList.add('sb-stale');
    } else {
      this.classList.remove('sb-stale');
      this.renderResult(r);
    }
    this.dispatchEvent(new CustomEvent('sb-result', { bubbles: true, detail: { name: this.name, inputs, response: r } }));
  }

  renderResult(r) {
    this.verdict.textContent = r.verdict || '';
    this.verdict.hidden = !r.verdict;
    const rows = Object.entries(r.values || {}).map(([k, v]) =>
      h('tr', { 'data-key': k }, h('th', { scope: 'row' }, v.label || k), h('td', {}, fmtValue(v))));
    this.results.replaceChildren(h('tbody', {}, rows));
    this.notes.replaceChildren(...(r.notes || []).map((n) => h('li', {}, n)));
    this.derivation.refresh();
    this.rerender();
  }

  rerender() {
    if (!this.response?.ok) return;
    for (const fn of [...(renderers.get(this.name) || []), ...this.own]) {
      try { fn(this.response, this.extra, this); } catch (e) { console.error(`renderer for ${this.name} failed`, e); }
    }
  }
}

if (!customElements.get('sb-calc')) customElements.define('sb-calc', SbCalc);
