// Formatting numbers with units and rendering derivations with KaTeX. Text from the module or the
// reader is always set as textContent; KaTeX renders into its own element.
import { h } from './core.js';

// KaTeX (600 KB of script) loads the first time a formula is shown, not with the page: every
// derivation starts closed, and as a static import it held up a chapter page's first result by a
// third of a second on a 2.5 MB/s link.
let katex = null;
let katexLoading = null;
function loadKatex() {
  katexLoading ??= import('../vendor/katex/katex.mjs').then((m) => { katex = m.default; });
  return katexLoading;
}

// Unit ids (core/units.hpp) -> symbol, an example of what to type, and whether SI prefixes apply.
const UNITS = {
  s: { sym: 's', example: '1.2 ms', si: true },
  B: { sym: 'B', example: '16 GB', si: true },
  flop: { sym: 'FLOPs', example: '2.4e12 FLOPs', si: true },
  flop_per_s: { sym: 'FLOPs/s', example: '197 TFLOPs/s', si: true },
  B_per_s: { sym: 'B/s', example: '820 GB/s', si: true },
  flop_per_B: { sym: 'FLOPs/B', example: '100 FLOPs/B', si: false },
  tokens: { sym: 'tokens', example: '4096', si: false },
  tokens_per_s: { sym: 'tokens/s', example: '1200 tokens/s', si: false },
  per_s: { sym: '/s', example: '30 /s', si: false },
  count: { sym: '', example: '512', si: false },
  ratio: { sym: '', example: '0.5 or 50%', si: false },
  chips: { sym: 'chips', example: '256', si: false },
  usd: { sym: 'USD', example: '1200', si: false },
  usd_per_hour: { sym: 'USD/h', example: '1.20', si: false },
  bool: { sym: '', example: 'yes / no', si: false },
  hz: { sym: 'Hz', example: '1.5 GHz', si: true },
};

export function unitSymbol(unit) {
  return UNITS[unit]?.sym ?? (unit || '');
}

// Placeholder text for an input of this unit.
export function unitExample(unit) {
  return UNITS[unit]?.example ?? '';
}

// A number with `sig` significant digits: 240.2439 -> "240.2", 1.97e14 -> "1.97e14", 8192 -> "8,192".
export function fmtNumber(v, sig = 4) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e-3 && a < 1e6) {
    const r = Number(v.toPrecision(sig));
    return Number.isInteger(r) ? r.toLocaleString('en-US') : String(r);
  }
  const [m, e] = v.toExponential(sig - 1).split('e');
  return `${Number(m)}e${Number(e)}`;
}

const PREFIX = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'], [1, ''], [1e-3, 'm'], [1e-6, 'µ'], [1e-9, 'n']];

// A quantity in base units as text with a decimal prefix where the unit takes one:
// (8.2e11, 'B_per_s') -> "820 GB/s"; (1.37e-3, 's') -> "1.37 ms"; (240.2, 'flop_per_B') -> "240.2 FLOPs/B".
export function fmtQuantity(v, unit, sig = 4) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return String(v);
  if (unit === 'bool') return v ? 'yes' : 'no';
  if (unit === 'ratio' && Math.abs(v) < 10) return `${fmtNumber(v, sig)}`;
  const info = UNITS[unit];
  const sym = unitSymbol(unit);
  if (info?.si && v !== 0) {
    const a = Math.abs(v);
    const [scale, p] = PREFIX.find(([s]) => a >= s * 0.9995) || PREFIX[PREFIX.length - 1];
    const n = v / scale;
    return `${Number(n.toPrecision(sig))} ${p}${sym}`;
  }
  return sym ? `${fmtNumber(v, sig)} ${sym}` : fmtNumber(v, sig);
}

// A result value from the module ({value, unit, text}) as text: the module's own text first.
export function fmtValue(val) {
  if (val === null || val === undefined) return '';
  if (typeof val !== 'object') return String(val);
  if (val.text) return val.text;
  if (typeof val.value === 'number') return fmtQuantity(val.value, val.unit);
  return val.value === undefined ? '' : String(val.value);
}

// Renders TeX into a new element (inline or display). Bad TeX shows as red source, not an exception;
// until KaTeX has loaded the element holds the source as text.
export function tex(source, { display = false, className = 'sb-tex' } = {}) {
  const el = h(display ? 'div' : 'span', { class: className });
  const render = () => {
    try {
      katex.render(String(source), el, { displayMode: display, throwOnError: false, output: 'html', strict: 'ignore' });
    } catch {
      el.textContent = String(source);
    }
  };
  if (katex) {
    render();
  } else {
    el.textContent = String(source);
    loadKatex().then(render, () => {});  // if KaTeX cannot load, the source text stays
  }
  return el;
}

// The derivation as a list: per step the sentence, the formula, the numbers substituted, the value.
export function renderTrace(steps) {
  const ol = h('ol', { class: 'sb-trace' });
  for (const s of steps || []) {
    const li = h('li', { class: s.formula || s.numbers ? 'sb-step' : 'sb-step sb-step-note' });
    if (s.what) li.append(h('div', { class: 'sb-step-what' }, s.what));
    const math = h('div', { class: 'sb-step-math' });
    if (s.formula) math.append(tex(s.formula, { display: true, className: 'sb-tex sb-step-formula' }));
    if (s.numbers) math.append(tex(s.numbers, { display: true, className: 'sb-tex sb-step-numbers' }));
    if (math.childNodes.length) li.append(math);
    const valueText = s.text || (typeof s.value === 'number' && (s.formula || s.numbers) ? fmtQuantity(s.value, s.unit) : '');
    if (valueText) li.append(h('div', { class: 'sb-step-value' }, '= ', h('strong', {}, valueText)));
    ol.append(li);
  }
  return ol;
}

// A <details> that renders the derivation the first time it is opened.
export function derivationToggle(getSteps, label = 'Show the derivation') {
  const body = h('div', { class: 'sb-derivation-body' });
  const d = h('details', { class: 'sb-derivation' }, h('summary', {}, label), body);
  let shown = null;
  const fill = () => {
    const steps = getSteps();
    if (steps === shown) return;
    shown = steps;
    body.replaceChildren(steps && steps.length ? renderTrace(steps) : h('p', { class: 'sb-muted' }, 'No derivation for this result.'));
  };
  d.addEventListener('toggle', () => { if (d.open) fill(); });
  d.refresh = () => { if (d.open) fill(); };
  return d;
}
