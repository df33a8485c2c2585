// What every widget on a page shares: its chapter's wasm module (loaded once), the catalogue and
// chip tables (JSON files, no module needed), the page-wide chip choice, URL state (so a
// configuration is a shareable link) and the reader's exercise progress.
import { load } from '../wasm/scaling.js';

// ---------------------------------------------------------------- the modules
// Two wasm modules per chapter: scaling-<chapter>.mjs, the core and that chapter's calculators,
// which a page needs before its first number, and scaling-<chapter>-problems.mjs, its exercises
// and the grader, loaded once the first is in (so that the two do not share the network before
// then). Where the chapter has heavy calculators, that second module computes them too, and the
// page's worker loads it for them (compute, below). The home and hardware pages load none.
const modules = new Map();  // "<chapter>" or "<chapter>-problems" -> Promise<Scaling>
let cachedList = null;
let cachedChips = null;

// The chapter records, in part order: [{id, prefix, part, title, slug, bases}] (data/catalog.json).
export async function chapters() {
  return (await catalog()).chapters || [];
}

// The chapter (folder id) whose module computes a calculator name or problem id:
// "roofline.matmul" -> "roofline", "applied-training.Q1" -> "applied_training". The text before the
// first '.' is a record's prefix; null if no record has it.
export async function chapterOf(nameOrId) {
  const s = String(nameOrId || '');
  const prefix = s.includes('.') ? s.slice(0, s.indexOf('.')) : s;
  return (await chapters()).find((c) => c.prefix === prefix)?.id ?? null;
}

// `who` names the caller in the error for a missing chapter.
function moduleOf(who, chapter, file, after) {
  const ch = String(chapter || '');
  const key = file(ch);
  if (!modules.has(key)) {
    const p = chapters().then(async (records) => {
      if (!records.some((c) => c.id === ch)) {
        throw new Error(ch ? `no module for chapter "${ch}"` : `${who}(chapter): no chapter given`);
      }
      await after(ch);
      return load(new URL(`../wasm/${key}.mjs`, import.meta.url));
    });
    modules.set(key, p);
    p.catch(() => modules.delete(key));  // a failed load may be retried
  }
  return modules.get(key);
}

// Resolves to the wrapper of wasm/scaling.js (sb.calc, sb.list, ...) over the calculators module of
// chapter `id` (a record's id, the folder name); loads it once. A chapter with no record rejects
// without a request.
export function scaling(chapter) {
  return moduleOf('scaling', chapter, (ch) => `scaling-${ch}`, async () => {});
}

// The same over the chapter's exercises module (sb.problem, sb.check, sb.variant), requested once
// its calculators module is in.
export function problems(chapter) {
  return moduleOf('problems', chapter, (ch) => `scaling-${ch}-problems`, (ch) => scaling(ch).catch(() => {}));
}

// A JSON file the site build wrote (web/build.mjs), fetched relative to this module.
async function siteData(file) {
  const url = new URL(`../data/${file}`, import.meta.url);
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${file}: HTTP ${res.status}`);
  const r = await res.json();
  if (!r || r.ok !== true) throw new Error(`${file}: ${r?.error?.message || 'not an ok response'}`);
  return r;
}

// The catalogue: the chapter records and every chapter's `list` response merged (calculators with
// schemas, problems), from data/catalog.json; fetched once.
export function catalog() {
  if (!cachedList) {
    cachedList = siteData('catalog.json');
    cachedList.catch(() => { cachedList = null; });
  }
  return cachedList;
}

// The `chips` response (the same in every module), from data/chips.json; fetched once.
export function chipTable() {
  if (!cachedChips) {
    cachedChips = siteData('chips.json');
    cachedChips.catch(() => { cachedChips = null; });
  }
  return cachedChips;
}

// The `units` response (the core's unit table), from data/units.json; fetched once.
let cachedUnits = null;
export function unitTable() {
  if (!cachedUnits) {
    cachedUnits = siteData('units.json');
    cachedUnits.catch(() => { cachedUnits = null; });
  }
  return cachedUnits;
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
// On the companion's own pages (lib/page.js calls useUrlState()) widgets keep their inputs in the
// query string as `<widget-id>.<input>=value`, and the page chip as `chip=`, so the address is a
// shareable link; writing uses history.replaceState so typing does not flood the history. Embedded
// in another site's page (lib/embed.js) they keep them in memory and leave the host's query string
// alone, unless the host opts in with a `url-state` attribute on the widget or an element around it
// (`<body url-state>`: every widget and the page chip).
let ownPage = false;
export function useUrlState() {
  ownPage = true;
}

// Whether `el` (or, with no element, the page chip) keeps its state in the URL.
export function urlStateOn(el = null) {
  if (ownPage) return true;
  if (typeof document === 'undefined') return false;
  return el ? !!el.closest?.('[url-state]') : !!document.querySelector('[url-state]');
}

// Writes to the address are gathered and made once per change: a model switch sets some sixty
// widget inputs, and as many history.replaceState calls blocked the page for half a second. Every
// read sees the pending query; the one write happens in a microtask, after the change's handlers.
let pendingQuery = null;
function query() {
  return new URLSearchParams(pendingQuery ?? location.search);
}
function writeQuery(q) {
  const first = pendingQuery === null;
  pendingQuery = q.toString();
  if (first) queueMicrotask(flushUrl);
}

// Makes the pending change of the address now (the microtask does it otherwise); at most one
// history.replaceState per change, none when the address is already so.
export function flushUrl() {
  if (pendingQuery === null) return;
  const s = pendingQuery;
  pendingQuery = null;
  if (s === location.search.replace(/^\?/, '')) return;
  history.replaceState(history.state, '', `${location.pathname}${s ? '?' + s : ''}${location.hash}`);
}

export function urlGet(key) {
  return query().get(key);
}

export function urlSet(key, value) {
  const q = query();
  if (value === null || value === undefined || value === '') q.delete(key);
  else q.set(key, String(value));
  writeQuery(q);
}

// All `<prefix>.<input>` pairs in the URL, as {input: value}.
export function urlGroup(prefix) {
  const out = {};
  for (const [k, v] of query()) {
    if (k.startsWith(prefix + '.')) out[k.slice(prefix.length + 1)] = v;
  }
  return out;
}

export function urlClearGroup(prefix) {
  const q = query();
  for (const k of [...q.keys()]) if (k.startsWith(prefix + '.')) q.delete(k);
  writeQuery(q);
}

// A widget's saved inputs under `prefix` (its widgetKey): in the URL where urlStateOn(el), else in
// memory for the life of the page. all() -> {input: value}; set(input, value) (null clears it);
// clear() drops them all.
const memory = new Map();  // prefix -> Map(input -> value)
export function widgetState(el, prefix) {
  const mem = () => {
    if (!memory.has(prefix)) memory.set(prefix, new Map());
    return memory.get(prefix);
  };
  return {
    all: () => (urlStateOn(el) ? urlGroup(prefix) : Object.fromEntries(mem())),
    set(input, value) {
      if (urlStateOn(el)) return urlSet(`${prefix}.${input}`, value);
      if (value === null || value === undefined || value === '') mem().delete(input);
      else mem().set(input, String(value));
    },
    clear: () => (urlStateOn(el) ? urlClearGroup(prefix) : mem().clear()),
  };
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

// The chip a page opens on when the reader has chosen none: the one its text uses, named by a
// `data-default-chip` attribute in its content (the training pages: v5p), else DEFAULT_CHIP.
function pageDefaultChip() {
  return (typeof document !== 'undefined' && document.querySelector('[data-default-chip]')?.getAttribute('data-default-chip')) || DEFAULT_CHIP;
}

// The page's chip: the URL's `chip=` wins (a shared link), then the reader's last choice.
export function getChip() {
  return (urlStateOn() && urlGet('chip')) || storeGet(CHIP_KEY) || pageDefaultChip();
}

// Sets the page chip, records it in the URL (where the page keeps state there) and localStorage,
// and tells every widget (document event 'sb-chip', detail {chip}).
export function setChip(id) {
  if (!id || id === getChip() && (!urlStateOn() || urlGet('chip') === id)) return;
  if (urlStateOn()) urlSet('chip', id);
  storeSet(CHIP_KEY, id);
  document.dispatchEvent(new CustomEvent('sb-chip', { detail: { chip: id } }));
}

// The last TPU the reader chose (or the page's default TPU): where a calculator refuses a GPU
// page chip, it computes on this one and the page says so (lib/calc.js, gpuNotice).
const TPU_KEY = 'sb.tpu';
export function rememberTpu(id) {
  storeSet(TPU_KEY, id);
}
// {id, picked}: the last TPU the reader picked, else the page's own default TPU (picked false).
export function lastTpu(tpuIds) {
  const stored = storeGet(TPU_KEY);
  if (stored && tpuIds.includes(stored)) return { id: stored, picked: true };
  const dflt = pageDefaultChip();
  return { id: tpuIds.includes(dflt) ? dflt : (tpuIds.includes(DEFAULT_CHIP) ? DEFAULT_CHIP : tpuIds[0]), picked: false };
}

// Whether the page's chip is the reader's (a link's or an earlier choice), not the page default.
export function chipChosen() {
  return !!((urlStateOn() && urlGet('chip')) || storeGet(CHIP_KEY));
}

// Makes the page's address carry the chip it shows, so that a link copied from it opens on the
// same chip: a known chip in the URL becomes the reader's choice for the next page too; otherwise
// the reader's choice (or the default) is written to the URL. `known` is the chip table's ids.
export function syncChip(known) {
  if (!urlStateOn()) return;
  const inUrl = urlGet('chip');
  if (inUrl && known.includes(inUrl)) {
    storeSet(CHIP_KEY, inUrl);
    return;
  }
  const stored = storeGet(CHIP_KEY);
  urlSet('chip', stored && known.includes(stored) ? stored : pageDefaultChip());
  // A link with an unknown chip showed the fallback; say which one it is now.
  if (inUrl) document.dispatchEvent(new CustomEvent('sb-chip', { detail: { chip: getChip() } }));
}

// Calls fn(chipId) on every change of the page chip; returns an unsubscribe function.
export function onChip(fn) {
  const h = (e) => fn(e.detail.chip);
  document.addEventListener('sb-chip', h);
  return () => document.removeEventListener('sb-chip', h);
}

// ---------------------------------------------------------------- the page-wide model
// Like the chip: one model for every widget on a page that takes a `model` input, carried in the
// address (`model=`, so a shared link opens on it) and in localStorage (so the next chapter opens
// on it too). A widget's own model field sets the page's model; "custom" stays the widget's own.
const MODEL_KEY = 'sb.model';

// The model a page opens on: the URL's `model=`, then the reader's last choice; null leaves each
// calculator on its own default.
export function getModel() {
  return (urlStateOn() && urlGet('model')) || storeGet(MODEL_KEY) || null;
}

// Sets the page model (address, storage) and tells every widget (document event 'sb-model',
// detail {model}).
export function setModel(id) {
  if (!id || id === 'custom') return;
  if (id === getModel() && (!urlStateOn() || urlGet('model') === id)) return;
  if (urlStateOn()) urlSet('model', id);
  storeSet(MODEL_KEY, id);
  document.dispatchEvent(new CustomEvent('sb-model', { detail: { model: id } }));
}

// A page whose calculators take a model writes the model it shows to its address; a known model in
// the URL becomes the reader's choice for the next page. `known`: the ids the page's calculators
// accept (empty: take the URL's as it is).
export function syncModel(known, fallback) {
  if (!urlStateOn()) return;
  const ok = (m) => !!m && (!known.length || known.includes(m));
  const inUrl = urlGet('model');
  if (ok(inUrl)) { storeSet(MODEL_KEY, inUrl); return; }
  const stored = storeGet(MODEL_KEY);
  urlSet('model', ok(stored) ? stored : fallback);
  if (inUrl) document.dispatchEvent(new CustomEvent('sb-model', { detail: { model: getModel() } }));
}

// Calls fn(modelId) on every change of the page model; returns an unsubscribe function.
export function onModel(fn) {
  const h = (e) => fn(e.detail.model);
  document.addEventListener('sb-model', h);
  return () => document.removeEventListener('sb-model', h);
}

// ---------------------------------------------------------------- heavy work off the main thread
// A calculator the registry marks heavy (a planner, a sweep, a pasted log) runs in a Web Worker
// that holds its own instance of the chapter's second module, scaling-<chapter>-problems.mjs
// (lib/worker.js), so the page's main thread never waits for it, and the page's first module
// carries none of its code. Where no worker can start (a host page of another origin), that
// module computes it here.
const workers = new Map();  // chapter -> {worker, pending: Map(id -> resolve)} | null
let lastJob = 0;

function workerOf(chapter) {
  if (workers.has(chapter)) return workers.get(chapter);
  let w = null;
  try {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    w = { worker, pending: new Map() };
    worker.onmessage = (e) => {
      const done = w.pending.get(e.data.id);
      w.pending.delete(e.data.id);
      done?.(e.data.response);
    };
    worker.onerror = (e) => {
      e.preventDefault?.();
      workers.set(chapter, null);  // from now on on the main thread
      for (const done of w.pending.values()) done(null);
      w.pending.clear();
    };
  } catch {
    w = null;
  }
  workers.set(chapter, w);
  return w;
}

// Resolves to the response of calculator `name`: in its chapter's worker when the catalogue marks
// it heavy (or, when the worker fails, from the chapter's second module here), else from the page's
// first module.
export async function compute(name, inputs) {
  const info = await calculatorInfo(name);
  const chapter = info?.chapter ?? await chapterOf(name);
  if (!info?.heavy) return (await scaling(chapter)).calc(name, inputs);
  const w = typeof Worker !== 'undefined' ? workerOf(chapter) : null;
  if (w) {
    const id = ++lastJob;
    const url = new URL(`../wasm/scaling-${chapter}-problems.mjs`, import.meta.url).href;
    const r = await new Promise((resolve) => {
      w.pending.set(id, resolve);
      w.worker.postMessage({ id, url, name, inputs });
    });
    if (r) return r;
  }
  return (await problems(chapter)).calc(name, inputs);
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

// Marks a problem done (all its slots correct, or a conceptual one read); fires 'sb-progress' on document.
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

// ---------------------------------------------------------------- main-thread tasks
// Ends the current task and resumes in a new one, so that a page's widgets, which all wake on the
// same module promise, are built one task each rather than in one long task (bench/tasks.mjs).
export function yieldToMain() {
  if (globalThis.scheduler?.yield) return globalThis.scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

// A widget's turn to build. The widgets of a page wake together on their modules and build one
// after another, each in a task of its own; where the page has gone FRAME_MS without a frame, the
// next waits for the browser to draw one. Without that wait the browser drew nothing until every
// widget had built, and then laid out the whole page in one frame: 50 to 70 ms on the inference
// page (bench/NOTES.md, "Twelfth pass"). A hidden page draws no frames: its widgets only yield.
const FRAME_MS = 16;
let turns = Promise.resolve();
let drawnAt = -Infinity;
const afterFrame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))
  .then(() => { drawnAt = performance.now(); });
export function widgetTurn() {
  const draw = !document.hidden && performance.now() - drawnAt >= FRAME_MS;
  turns = turns.then(draw ? afterFrame : yieldToMain);
  return turns;
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
