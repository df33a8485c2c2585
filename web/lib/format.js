// Formatting numbers with units (the core's unit table) and rendering derivations with KaTeX. Text from the module or the
// reader is always set as textContent; KaTeX renders into its own element.
import { h, unitTable, yieldToMain } from './core.js';

// KaTeX (600 KB of script) loads the first time a formula is shown, not with the page: every
// derivation starts closed, and as a static import it held up a chapter page's first result by a
// third of a second on a 2.5 MB/s link.
let katex = null;
let katexLoading = null;
function loadKatex() {
  katexLoading ??= import('../vendor/katex/katex.mjs').then((m) => { katex = m.default; });
  return katexLoading;
}

// The core's unit table (op "units", written by the site build to data/units.json): per unit id
// its symbol, an example of what to type and the forms the core writes it in. The one unit table:
// format.js makes no unit decisions of its own. Widgets await loadUnits() before they format.
let units = null;  // Map: unit id -> {id, symbol, example, prefixes, before, after, forms?, words?}
let unitsLoading = null;
export function loadUnits() {
  unitsLoading ??= unitTable().then((r) => { units = new Map(r.units.map((u) => [u.id, u])); });
  unitsLoading.catch(() => { unitsLoading = null; });  // a failed load may be retried
  return unitsLoading;
}

// The unit's symbol for labels ("B/s", "FLOPs"; "" for plain counts).
export function unitSymbol(unit) {
  return units?.get(unit)?.symbol ?? '';
}

// Whether the core writes this unit with decimal prefixes ("820 GB/s") rather than plain ("1.97e14
// FLOPs/s"): the unit table's `prefixes`.
export function unitHasPrefixes(unit) {
  return units?.get(unit)?.prefixes === 'si';
}

// An example of what the reader may type ("820 GB/s"), for placeholders.
export function unitExample(unit) {
  return units?.get(unit)?.example ?? '';
}

// A plain number with `sig` significant digits, as the core writes it (units::number): exponent
// form outside [1e-3, 1e6) ("1.97e14"), a whole number keeps its digits ("123457"), else rounded
// ("240.2").
export function fmtNumber(v, sig = 4) {
  if (typeof v !== 'number') return String(v);
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e6 || a < 1e-3) {
    const [m, e] = v.toExponential(sig - 1).split('e');
    return `${Number(m)}e${Number(e)}`;
  }
  const r = Number(v.toPrecision(sig));
  if (Math.abs(r) >= 10 ** (sig - 1)) return String(Math.sign(v) * Math.round(a));
  return String(r);
}

// A quantity in base units as text, in the form the core writes it (the unit table's forms):
// (8.2e11, 'B_per_s') -> "820 GB/s"; (1.37e-3, 's') -> "1.37 ms"; (1.97e14, 'flop_per_s') ->
// "1.97e14 FLOPs/s". Before the table has loaded: the number and the unit id.
export function fmtQuantity(v, unit, sig = 4) {
  const u = units?.get(unit);
  if (!u) return unit ? `${fmtNumber(v, sig)} ${unit}` : fmtNumber(v, sig);
  if (u.words) return u.words[v ? 1 : 0];
  if (u.one && v === 1) return u.one;
  if (typeof v !== 'number' || !Number.isFinite(v)) return `${u.before}${fmtNumber(v, sig)}${u.after}`;
  const form = (u.forms || []).find((f) => Math.abs(v) >= f.at);
  return form ? `${u.before}${fmtNumber(v / form.scale, sig)}${form.after}` : `${u.before}${fmtNumber(v, sig)}${u.after}`;
}

// A result value from the module ({value, unit, text}) as text: the module's own text first.
export function fmtValue(val) {
  if (val === null || val === undefined) return '';
  if (typeof val !== 'object') return String(val);
  if (val.text) return val.text;
  if (typeof val.value === 'number') return fmtQuantity(val.value, val.unit);
  return val.value === undefined ? '' : String(val.value);
}

// Typeset formulas by their source: an open derivation is drawn again on every answer, and most
// of its formulas (all but the numbers substituted) come back the same; a copy of the typeset
// element costs a fraction of typesetting it again.
const typeset = new Map();  // `${display}|${source}` -> a typeset element
const TYPESET_KEPT = 500;

// Renders TeX into a new element (inline or display). Bad TeX shows as red source, not an exception;
// until KaTeX has loaded the element holds the source as text.
export function tex(source, { display = false, className = 'sb-tex' } = {}) {
  const key = `${display ? 'd' : 'i'}|${source}`;
  const kept = typeset.get(key);
  if (kept) {
    const el = kept.cloneNode(true);
    el.className = className;
    return el;
  }
  const el = h(display ? 'div' : 'span', { class: className });
  const render = () => {
    try {
      katex.render(String(source), el, { displayMode: display, throwOnError: false, output: 'html', strict: 'ignore' });
      if (typeset.size >= TYPESET_KEPT) typeset.clear();
      typeset.set(key, el.cloneNode(true));
    } catch {
      el.textContent = String(source);
    }
  };
  if (katex) {
    render();
  } else {
    // No raw TeX on screen while KaTeX loads: the element waits empty (busy), and shows the
    // source only if KaTeX cannot load.
    el.classList.add('sb-tex-pending');
    el.setAttribute('aria-busy', 'true');
    const done = () => { el.classList.remove('sb-tex-pending'); el.removeAttribute('aria-busy'); };
    loadKatex().then(() => { done(); render(); }, () => { done(); el.textContent = String(source); });
  }
  return el;
}

// A step's words with inline math between dollar signs (core/trace.hpp): text nodes for the
// words, typeset TeX for the math. An unpaired dollar sign stays as written.
export function sentence(text) {
  const parts = String(text).split('$');
  if (parts.length % 2 === 0) return [String(text)];
  return parts.map((p, i) => (i % 2 ? tex(p) : document.createTextNode(p)));
}

// One step of a derivation, as its parts: the sentence, the formula, the numbers substituted, the
// value. Each part is an element of its own, so that a new answer can draw again only the parts
// that changed (most often the numbers and the value).
function stepParts(s) {
  const value = s.text || (typeof s.value === 'number' && (s.formula || s.numbers) ? fmtQuantity(s.value, s.unit) : '');
  return { what: s.what || '', formula: s.formula || '', numbers: s.numbers || '', value };
}
const drawPart = {
  what: (t) => h('div', { class: 'sb-step-what' }, ...sentence(t)),
  formula: (t) => tex(t, { display: true, className: 'sb-tex sb-step-formula' }),
  numbers: (t) => tex(t, { display: true, className: 'sb-tex sb-step-numbers' }),
  value: (t) => h('div', { class: 'sb-step-value' }, '= ', h('strong', {}, t)),
};

function renderStep(s) {
  const parts = stepParts(s);
  const math = parts.formula || parts.numbers;
  const li = h('li', { class: math ? 'sb-step' : 'sb-step sb-step-note' });
  const els = {};
  const part = (k) => (parts[k] ? (els[k] = drawPart[k](parts[k])) : null);
  li.append(...[part('what'), math ? h('div', { class: 'sb-step-math' }, part('formula'), part('numbers')) : null,
    part('value')].filter(Boolean));
  li.sbStep = { parts, els };
  return li;
}

// The parts of a drawn step that a new step changes, drawn (not yet in the page); null where a
// part comes or goes, and the whole step is drawn again.
function stepEdits(li, s) {
  const was = li.sbStep;
  const parts = stepParts(s);
  if (!was || Object.keys(parts).some((k) => !parts[k] !== !was.parts[k])) return null;
  return { parts, edits: Object.keys(parts).filter((k) => parts[k] !== was.parts[k]).map((k) => [k, drawPart[k](parts[k])]) };
}

// The derivation as a list: per step the sentence, the formula, the numbers substituted, the value.
export function renderTrace(steps) {
  return h('ol', { class: 'sb-trace' }, (steps || []).map(renderStep));
}

// Typesetting a long derivation takes a few hundred milliseconds: what changed is drawn a slice of
// steps per task, in tasks after the answer's own, off screen, and put in place in one task once
// whole. A step that comes back the same is left as it is, and of a changed one only its changed
// parts are replaced: the browser styles and lays out again only what changed, where a whole new
// list of thousands of typeset elements took one frame of 50 to 85 ms (bench/NOTES.md, "Twelfth
// pass"). Returns the function that puts it in place, or null when a newer answer came first.
const SLICE_MS = 20;
async function drawTraceInSlices(steps, superseded, old) {
  await loadKatex();
  await yieldToMain();
  if (superseded()) return null;
  const drawn = old ? [...old.children] : [];
  const edits = [];
  let start = performance.now();
  for (const [i, s] of steps.entries()) {
    if (performance.now() - start > SLICE_MS) {
      await yieldToMain();
      if (superseded()) return null;
      start = performance.now();
    }
    edits.push((drawn[i] && stepEdits(drawn[i], s)) || { li: renderStep(s) });
  }
  return () => {
    const ol = old || h('ol', { class: 'sb-trace' });
    for (const [i, e] of edits.entries()) {
      const li = drawn[i];
      if (!e.li) {
        for (const [k, el] of e.edits) {
          li.sbStep.els[k].replaceWith(el);
          li.sbStep.els[k] = el;
        }
        li.sbStep.parts = e.parts;
      } else if (li) {
        li.replaceWith(e.li);
      } else {
        ol.append(e.li);
      }
    }
    for (const li of drawn.slice(steps.length)) li.remove();
    return ol;
  };
}

// A <details> that renders the derivation the first time it is opened, and again on each new
// answer while it is open (busy until the new one is drawn; the last one stays until then).
export function derivationToggle(getSteps, label = 'Show the derivation') {
  const body = h('div', { class: 'sb-derivation-body' });
  const d = h('details', { class: 'sb-derivation' }, h('summary', {}, label), body);
  let shown = null;
  let drawing = 0;
  const fill = async () => {
    const steps = getSteps();
    if (steps === shown) return;
    shown = steps;
    const mine = ++drawing;
    if (!steps || !steps.length) {
      body.removeAttribute('aria-busy');
      body.replaceChildren(h('p', { class: 'sb-muted' }, 'No derivation for this result.'));
      return;
    }
    body.setAttribute('aria-busy', 'true');
    const old = body.querySelector(':scope > ol.sb-trace');
    let put = null;
    try {
      put = await drawTraceInSlices(steps, () => mine !== drawing, old);
    } catch {
      put = () => renderTrace(steps);  // KaTeX did not load: each formula shows its source
    }
    if (mine !== drawing || !put) return;
    const ol = put();
    if (ol !== old) body.replaceChildren(ol);
    body.removeAttribute('aria-busy');
  };
  d.addEventListener('toggle', () => { if (d.open) fill(); });
  d.refresh = () => { if (d.open) fill(); };
  return d;
}
