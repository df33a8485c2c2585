// What every widget on a page shares: the wasm module (loaded once), the page-wide chip choice,
// URL state (so a configuration is a shareable link) and the reader's exercise progress.
import { load } from '../wasm/scaling.js';

// ---------------------------------------------------------------- the module
let ready = null;
let cachedList = null;
let cachedChips = null;

// Resolves to the wrapper of wasm/scaling.js (sb.calc, sb.problem, ...); loads it once.
export function scaling() {
  if (!ready) ready = load(new URL('../wasm/scaling.mjs', import.meta.url));
  return ready;
}

// The `list` response (calculators with schemas, problems), fetched once.
export async function catalog() {
  if (!cachedList) {
    const sb = await scaling();
    const r = sb.list();
    if (!r.ok) throw new Error(`list failed: ${r.error.message}`);
    cachedList = r;
  }
  return cachedList;
}

// The `chips` response, fetched once.
export async function chipTable() {
  if (!cachedChips) {
    const sb = await scaling();
    const r = sb.chips();
    if (!r.ok) throw new Error(`chips failed: ${r.error.message}`);
    cachedChips = r;
  }
  return cachedChips;
}

export async function calculatorInfo(name) {
  const { calculators } = await catalog();
  return calculators.find((c) => c.name === name) || null;
}

export async function problemsOf(chapter) {
  const { problems } = await catalog();
  return problems.filter((p) => p.chapter === chapter);
}

// ---------------------------------------------------------------- URL state
// Widget inputs live in the query string as `<widget-id>.<input>=value`; writing uses
// history.replaceState so typing does not flood the history.
export function urlGet(key) {
  return new URLSearchParams(location.search).get(key);
}

export function urlSet(key, value) {
  const q = new URLSearchParams(location.search);
  if (value === null || value === undefined || value === '') q.delete(key);
  else q.set(key, String(value));
  const s = q.toString();
  history.replaceState(history.state, '', `${location.pathname}${s ? '?' + s : ''}${location.hash}`);
}

// All `<prefix>.<input>` pairs in the URL, as {input: value}.
export function urlGroup(prefix) {
  const out = {};
  for (const [k, v] of new URLSearchParams(location.search)) {
    if (k.startsWith(prefix + '.')) out[k.slice(prefix.length + 1)] = v;
  }
  return out;
}

export function urlClearGroup(prefix) {
  const q = new URLSearchParams(location.search);
  for (const k of [...q.keys()]) if (k.startsWith(prefix + '.')) q.delete(k);
  const s = q.toString();
  history.replaceState(history.state, '', `${location.pathname}${s ? '?' + s : ''}${location.hash}`);
}

// A widget's state key prefix: its id attribute, else the given fallback (calculator name,
// problem id). Two copies of one widget on a page need distinct ids to keep distinct state.
export function widgetKey(el, fallback) {
  return el.id || fallback;
}

// ---------------------------------------------------------------- storage
function store() {
  try { return window.localStorage; } catch { return null; }  // storage may be disabled
}
function storeGet(k) { try { return store()?.getItem(k) ?? null; } catch { return null; } }
function storeSet(k, v) { try { store()?.setItem(k, v); } catch { /* quota or disabled */ } }

// ---------------------------------------------------------------- the page-wide chip
const CHIP_KEY = 'sb.chip';
export const DEFAULT_CHIP = 'v5e';

// The page's chip: the URL's `chip=` wins (a shared link), then the reader's last choice.
export function getChip() {
  return urlGet('chip') || storeGet(CHIP_KEY) || DEFAULT_CHIP;
}

// Sets the page chip, records it in the URL and localStorage, and tells every widget
// (document event 'sb-chip', detail {chip}).
export function setChip(id) {
  if (!id || id === getChip() && urlGet('chip') === id) return;
  urlSet('chip', id);
  storeSet(CHIP_KEY, id);
  document.dispatchEvent(new CustomEvent('sb-chip', { detail: { chip: id } }));
}

// Calls fn(chipId) on every change of the page chip; returns an unsubscribe function.
export function onChip(fn) {
  const h = (e) => fn(e.detail.chip);
  document.addEventListener('sb-chip', h);
  return () => document.removeEventListener('sb-chip', h);
}

// ---------------------------------------------------------------- progress
const PROGRESS_KEY = 'sb.solved';

export function solvedSet() {
  try {
    const v = JSON.parse(storeGet(PROGRESS_KEY) || '[]');
    return new Set(Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);
  } catch {
    return new Set();
  }
}

export function isSolved(id) {
  return solvedSet().has(id);
}

// Marks a problem solved (all its slots correct); fires 'sb-progress' on document.
export function markSolved(id) {
  const s = solvedSet();
  if (s.has(id)) return;
  s.add(id);
  storeSet(PROGRESS_KEY, JSON.stringify([...s].sort()));
  document.dispatchEvent(new CustomEvent('sb-progress', { detail: { id } }));
}

// {chapter: number solved} over the problems in the catalogue.
export async function progressByChapter() {
  const solved = solvedSet();
  const { problems } = await catalog();
  const out = {};
  for (const p of problems) {
    out[p.chapter] ??= { solved: 0, total: 0 };
    out[p.chapter].total += 1;
    if (solved.has(p.id)) out[p.chapter].solved += 1;
  }
  return out;
}

// ---------------------------------------------------------------- DOM building
// h('div', {class: 'x', title: t}, child, 'text', ...): builds elements; strings become text nodes,
// never HTML, so reader or module text can't inject markup.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// Adds a stylesheet link once (widgets embedded in a foreign page bring their own css).
export function ensureStylesheet(href) {
  const url = new URL(href, import.meta.url).href;
  if ([...document.querySelectorAll('link[rel="stylesheet"]')].some((l) => l.href === url)) return;
  document.head.append(h('link', { rel: 'stylesheet', href: url }));
}

// Stylesheets the widgets need: KaTeX, uPlot and the widget styles.
export function ensureWidgetStyles() {
  ensureStylesheet('../vendor/katex/katex.min.css');
  ensureStylesheet('../vendor/uplot/uPlot.min.css');
  ensureStylesheet('../css/widgets.css');
}

// Small debouncer for live recompute.
export function debounce(fn, ms = 120) {
  let t = 0;
  return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); };
}

// Strips the "inputs." / "answers." / "given." prefix of an error field, so it names a form field.
export function fieldName(field) {
  return String(field || '').replace(/^(inputs|answers|given)\./, '');
}
