// <sb-calc name="roofline.matmul">: a calculator form generated from the calculator's schema.
// Live recompute; results table, verdict, notes, errors next to their field, derivation (KaTeX).
// Extension: listen for 'sb-result' (detail {name, inputs, response}) or register a renderer:
//   SbCalc.addRenderer('roofline.matmul', (response, extraEl, calcEl) => { ...plot... })
//   calcEl.addRenderer(fn) for one instance. Renderers draw into calcEl.extra (below the results).
import {
  scaling, catalog, calculatorInfo, chipTable, getChip, onChip, getModel, setModel, onModel, lastTpu,
  compute, widgetState, widgetKey, h, debounce, fieldName, ensureWidgetStyles, widgetTurn,
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
    // Busy from the keystroke until the answer is shown: screen readers hear one update, and the
    // browser tests wait for it rather than for a fixed time.
    const later = debounce(() => this.run(), 120);
    this.recompute = () => { this.editing = true; this.setAttribute('aria-busy', 'true'); later(); };
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
    await widgetTurn();  // each widget of the page in a task of its own, in turn
    this.sb = sb;
    const chips = table.chips;
    this.gpus = new Map(chips.filter((c) => c.kind === 'gpu').map((c) => [c.id, c.name]));
    this.state = widgetState(this, this.key);
    const saved = this.state.all();
    const form = h('form', { class: 'sb-form', onsubmit: (e) => e.preventDefault() });
    for (const p of info.params) form.append(this.field(p, saved[p.name], chips));
    this.formError = h('p', { class: 'sb-error sb-form-error', role: 'alert', hidden: true });
    this.modelNote = h('p', { class: 'sb-note sb-model-note', hidden: true });
    this.verdict = h('p', { class: 'sb-verdict', 'aria-live': 'polite' });
    this.results = h('table', { class: 'sb-results' });
    this.notes = h('ul', { class: 'sb-notes' });
    this.extra = h('div', { class: 'sb-calc-extra' });
    this.derivation = derivationToggle(() => this.response?.ok ? this.response.trace : null);
    this.replaceChildren(
      h('header', { class: 'sb-widget-head' }, h('h3', {}, info.title), info.doc ? h('p', { class: 'sb-doc' }, info.doc) : null),
      h('div', { class: 'sb-calc-body' }, form,
        h('div', { class: 'sb-calc-out' }, this.modelNote, this.formError, this.verdict, this.results, this.notes)),
      this.extra, this.derivation);
    this.tpus = chips.filter((c) => c.kind !== 'gpu').map((c) => c.id);
    this.chipNames = new Map(chips.map((c) => [c.id, c.name]));
    this.unfollow = [onChip((chip) => this.follow('chip', chip)), onModel((m) => this.follow('model', m))];
    // Every model's words, from every model menu of the catalogue, to name a page model this one lacks.
    this.modelNames = new Map((await catalog()).calculators.flatMap((c) => c.params)
      .filter((q) => q.name === 'model' && q.choices).flatMap((q) => q.choices.map((v, i) => [v, q.labels?.[i] ?? v])));
    this.noteModel(getModel());
    await widgetTurn();  // the form in one turn, the first answer in the next
    this.run();
  }

  disconnectedCallback() {
    for (const f of this.unfollow || []) f();
    gpuNotice.drop(this);
  }

  // The page's chip or model changed: the field takes it (where it offers it) and the widget
  // follows the page again.
  follow(name, value) {
    const f = this.fields.get(name);
    if (name === 'model') this.noteModel(value);
    if (!f || !offers(f.input, value) || !this.takesPageChip(f.param, name === 'chip' ? value : null)) return;
    if (f.input.value === value) return;
    f.input.value = value;
    this.state.set(name, null);
    this.runSoon();
  }

  // Recomputes in a task of its own: a change of the page's chip or model reaches every calculator
  // of the page in one event, and their answers one after another made one long task. Busy until
  // the answer shows.
  runSoon() {
    this.setAttribute('aria-busy', 'true');
    const mine = (this.soon = (this.soon || 0) + 1);
    widgetTurn().then(() => { if (mine === this.soon) this.run(); });
  }

  // A page model this calculator's menu lacks (a dense model where only a mixture of experts makes
  // sense): the widget keeps its own and says so, naming both.
  noteModel(id) {
    const f = this.fields.get('model');
    const lacks = !!id && !!f && f.input.tagName === 'SELECT' && !offers(f.input, id);
    this.modelNote.hidden = !lacks;
    if (!lacks) return;
    const shown = f.input.selectedOptions[0]?.textContent || f.input.value;
    this.modelNote.textContent = `The page's model, ${this.modelNames.get(id) || id}, is not in this calculator's menu: it shows ${shown}.`;
  }

  // One input per parameter: numbers as text (units allowed), choices and the chip as selects. The
  // label is the parameter's words (its doc), never its internal name; choices read as words.
  field(p, saved, chips) {
    const id = `${this.key}--${p.name}`.replace(/[^A-Za-z0-9_-]/g, '_');
    const input = this.input(p, id, saved, chips);
    const error = h('span', { class: 'sb-field-error', role: 'alert', id: `${id}--err` });
    input.setAttribute('aria-describedby', error.id);
    input.addEventListener(input.tagName === 'SELECT' ? 'change' : 'input', () => this.edited(p, input));
    if (p.name === 'model' && input.tagName !== 'SELECT') input.addEventListener('change', () => this.shareModel());
    this.fields.set(p.name, { param: p, input, error });
    const unit = p.kind === 'number' && unitSymbol(p.unit) ? h('span', { class: 'sb-unit' }, unitSymbol(p.unit)) : null;
    const zero = p.kind === 'number' ? zeroMeaning(p) : '';
    return h('div', { class: 'sb-field', 'data-field': p.name },
      h('label', { for: id, title: p.doc || '' }, h('span', { class: 'sb-param' }, paramLabel(p))),
      h('div', { class: 'sb-input' }, input, unit, zero ? h('span', { class: 'sb-unit' }, `0 = ${zero}`) : null), error);
  }

  // A calculator of GPUs (Part 12: its own chip is a GPU) follows a GPU page chip only; a TPU page
  // chip leaves it on its own GPU. (A TPU calculator takes a GPU page chip and says why it
  // computes on a TPU: refusedGpu below.)
  takesPageChip(p, chip) {
    return !chip || !this.gpuCalculator(p) || this.gpus.has(chip);
  }

  gpuCalculator(p = this.fields.get('chip')?.param) {
    return !!p && this.gpus.has(p.default);
  }

  input(p, id, saved, chips) {
    const isChip = p.name === 'chip';
    if (isChip || p.kind === 'choice') {
      // The page's chip offers every chip; a second chip field (the TPU beside a GPU) offers the
      // chips of its default's kind. Both by name.
      const kind = (c) => (c.kind === 'gpu' ? 'gpu' : 'tpu');
      const own = p.chip && !isChip ? chips.find((c) => c.id === p.default) : null;
      const options = isChip ? chips.map((c) => [c.id, c.name])
        : own ? chips.filter((c) => kind(c) === kind(own)).map((c) => [c.id, c.name])
        : (p.choices || []).map((c, i) => [c, p.labels?.[i] ?? choiceWords(c)]);
      const input = h('select', { id, name: p.name }, options.map(([v, t]) => h('option', { value: v }, t)));
      const page = isChip ? (this.takesPageChip(p, getChip()) ? getChip() : null) : (p.name === 'model' ? getModel() : null);
      for (const want of [saved, page, p.default]) {
        if (options.some(([v]) => v === want)) { input.value = want; break; }
      }
      return input;
    }
    // A long text (a pasted log) keeps its lines: a text box, not a one-line field.
    if (p.long_text) {
      const box = h('textarea', { id, name: p.name, rows: 6, spellcheck: 'false', class: 'sb-log' });
      box.value = saved ?? p.default ?? '';
      return box;
    }
    const input = h('input', {
      id, name: p.name, type: 'text', inputmode: p.kind === 'number' ? 'decimal' : 'text',
      autocomplete: 'off', spellcheck: 'false',
      placeholder: p.kind === 'number' ? unitExample(p.unit) : '',
    });
    const page = p.name === 'model' ? getModel() : null;
    input.value = saved ?? page ?? (p.kind === 'number' ? this.defaultText(p) : (p.default ?? ''));
    return input;
  }

  // The reader changed a field. A model picked from a menu is the page's model: every widget
  // follows (a custom one stays this widget's own).
  edited(p, input) {
    if (p.name === 'model' && input.tagName === 'SELECT' && input.value !== 'custom') {
      this.state.set('model', null);
      setModel(input.value);
    } else {
      this.state.set(p.name, input.value);
    }
    this.recompute();
  }

  // A model typed by name: once the module knows it, it is the page's model (by its table id).
  shareModel() {
    this.run();
    const id = this.response?.ok ? (this.response.model?.id || this.response.inputs?.model) : null;
    if (!id || id === 'custom') return;
    this.state.set('model', null);
    setModel(id);
  }

  // A number's default in the box: as the core writes it where its unit takes a prefix ("820 GB/s");
  // else the plain number ("8192", "1.97e14"), its unit being beside the box.
  defaultText(p) {
    if (unitHasPrefixes(p.unit) && p.default_text) return p.default_text;
    return typeof p.default === 'number' ? fmtNumber(p.default, 15) : String(p.default ?? '');
  }

  // Current inputs as sent to the module: text as typed (the core parses units); empty = default;
  // the TPU it computes on where it refused a GPU page chip.
  inputs() {
    const out = this.formInputs();
    if (this.fallback && out.chip === this.fallback.gpu) out.chip = this.fallback.tpu;
    return out;
  }

  formInputs() {
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

  // Computes with the form's inputs: at once on the main thread, or in the chapter's worker for a
  // heavy calculator (the last answer stays on screen, marked busy, until the new one arrives).
  run() {
    // setInputs() may arrive before the form is built; the first run after the build catches up.
    if (!this.sb || !this.formError) return;
    this.editing = false;
    const inputs = this.formInputs();
    if (!this.info.heavy) {
      let r = this.sb.calc(this.name, inputs);
      const tpu = this.refusedGpu(inputs, r);
      if (tpu) r = this.sb.calc(this.name, { ...inputs, chip: tpu });
      this.removeAttribute('aria-busy');
      this.show(inputs, r, tpu);
      return;
    }
    const seq = (this.seq = (this.seq || 0) + 1);
    this.setAttribute('aria-busy', 'true');
    this.classList.add('sb-searching');  // its heading says so while the worker searches
    (async () => {
      const call = (ins) => compute(this.name, ins);
      let r = await call(inputs);
      const tpu = this.refusedGpu(inputs, r);
      if (tpu) r = await call({ ...inputs, chip: tpu });
      if (seq !== this.seq) return;  // a newer run is on its way
      if (!this.editing) this.removeAttribute('aria-busy');  // else busy until that edit's answer
      this.classList.remove('sb-searching');
      this.show(inputs, r, tpu);
    })();
  }

  // A GPU page chip that the calculator refuses (its error names the chip field): the TPU to
  // compute on instead, the last one the reader chose. A chip the reader set in this widget alone
  // keeps its error.
  refusedGpu(inputs, r) {
    if (r.ok || fieldName(r.error.field) !== 'chip' || !this.gpus.has(inputs.chip)) return null;
    if (this.gpuCalculator()) return null;  // a GPU it cannot use keeps its error
    if (this.state.all().chip !== undefined || !this.tpus.length) return null;
    this.tpuPicked = lastTpu(this.tpus).picked;
    this.gpuWhy = r.error.message;
    return lastTpu(this.tpus).id;
  }

  show(inputs, r, tpu) {
    this.response = r;
    this.fallback = tpu && r.ok ? { gpu: inputs.chip, tpu } : null;
    if (tpu && r.ok) gpuNotice.add(this, this.chipNames.get(inputs.chip), this.chipNames.get(tpu), this.tpuPicked, this.gpuWhy);
    else gpuNotice.drop(this);
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
      if (tpu) this.fields.get('chip').error.textContent = `computed on ${this.chipNames.get(tpu)}: see the note at the top of the page`;
      this.renderResult(r);
    }
    this.dispatchEvent(new CustomEvent('sb-result', { bubbles: true, detail: { name: this.name, inputs: tpu ? { ...inputs, chip: tpu } : inputs, response: r } }));
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

// Whether a select offers a value (a text field takes any).
function offers(input, value) {
  return input.tagName !== 'SELECT' || [...input.options].some((o) => o.value === value);
}

// A parameter's label: its words (p.label, else the doc up to its first ';' or ':'), never the
// internal name; the full doc is the label's tooltip.
export function paramLabel(p) {
  const words = p.label || String(p.doc || '').split(/[;:(]/)[0].trim();
  return words || choiceWords(p.name);
}

// What a 0 in a number field stands for, where its doc says ("layers (0: the model's)", "clock: 0 =
// the chip's, else ..."): the label keeps only the words before the bracket, and a bare 0 beside
// "layers" reads as no layers.
export function zeroMeaning(p) {
  return String(p.doc || '').match(/(?:^|[(;:,]\s*)0\s*[:=]\s*([^;,()]+)/)?.[1].trim() ?? '';
}

// A choice value as words: "save_all" -> "save all".
export function choiceWords(v) {
  return String(v).replace(/_/g, ' ');
}

// The note at the top of a page whose calculators refuse a GPU page chip: what a GPU lacks here,
// and which TPU they compute on instead. One note for the page, whichever widgets fell back.
export const gpuNotice = {
  who: new Map(),  // calc element -> {gpu, tpu}
  add(calc, gpu, tpu, picked, why) {
    this.who.set(calc, { gpu, tpu, picked, why });
    this.draw();
  },
  drop(calc) {
    if (this.who.delete(calc)) this.draw();
  },
  draw() {
    let el = document.getElementById('sb-gpu-notice');
    if (!this.who.size) { el?.remove(); return; }
    if (!el) {
      el = h('aside', { id: 'sb-gpu-notice', class: 'sb-page-notice', role: 'status' });
      const intro = document.querySelector('main .sb-intro');
      if (intro) intro.after(el); else document.querySelector('main')?.prepend(el);
    }
    const [{ gpu, tpu, picked, why }] = this.who.values();
    const titles = [...this.who.keys()].map((c) => c.info?.title).filter(Boolean);
    // What the GPU lacks here is the module's own sentence (the refused call's error), less the
    // field and the chip's name it starts with (the heading says it), and its "pick a TPU" (the
    // widgets do that themselves, as the sentence after it says).
    const lacks = String(why || '').replace(/^[a-z_]+:\s*/, '').replace(/^.*? is a GPU:\s*/, '')
      .replace(/(?:;\s*here,)?\s*pick a TPU\.?$/i, '').replace(/([^.])$/, '$1.');
    el.replaceChildren(h('strong', {}, `${gpu} is a GPU. `),
      lacks ? `${lacks.charAt(0).toUpperCase()}${lacks.slice(1)} ` : '',
      `So ${titles.length > 1 ? 'these widgets compute' : 'this widget computes'} on ` +
      `${tpu}, ${picked ? 'the last TPU chip you picked' : 'the TPU this page starts on'}: `, titles.join('; '), '.');
  },
};

if (!customElements.get('sb-calc')) customElements.define('sb-calc', SbCalc);
