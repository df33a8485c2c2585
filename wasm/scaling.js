// The idiomatic JS face of the core:
//   const sb = await load({ chapter: 'roofline' }); sb.calc('roofline.matmul', { B: 512 })
// Each chapter of the book has two modules: scaling-<chapter>.mjs (+ .wasm), the core and that
// chapter's calculators, which a page loads first, and scaling-<chapter>-problems.mjs, the core,
// that chapter's exercises and the grader, which a page loads after it (load({chapter,
// problems: true})). For a chapter with heavy calculators (a planner, a pasted log), that second
// module is the whole chapter: its calculators with the heavy ones' code too, which a page's worker
// loads (load({chapter, heavy: true}) names the same module); the first module answers those
// `not_in_module`.
// Every call sends one JSON request to the module's `api` and returns the parsed response.
// Errors are values: {ok: false, error: {code, message, field}}; nothing here throws for bad input.
// Contract: docs/API.md.

const cache = new Map();  // resolved module URL -> Promise<Scaling>

const isNode = typeof process !== 'undefined' && !!(process.versions && process.versions.node);

// A chapter is named as its folder chapters/<name>/ (a C++ namespace), never a path.
const CHAPTER = /^[a-z_][a-z0-9_]*$/;

// Where scaling-<chapter>.mjs is: beside this file (the site layout), or in the wasm build's
// output when this file is used from the repo under node.
function chapterUrls(chapter, part) {
  const file = `scaling-${chapter}${part ? `-${part}` : ''}.mjs`;
  const here = new URL(`./${file}`, import.meta.url);
  return isNode ? [here, new URL(`../build/wasm/bin/${file}`, import.meta.url)] : [here];
}

async function nodeExists(url) {
  const fs = await import('node:fs');
  return fs.existsSync(url);
}

// load(url) or load({chapter, problems? | heavy? | url | factory, wasmBinary?, locateFile?}):
// resolves to the wrapper (with problems: true, over the chapter's second module: its exercises,
// and its heavy calculators where it has any; heavy: true is the same module),
// once per module. In node the .wasm beside the .mjs is read from disk and handed to the factory,
// because the emscripten 3.1.6 loader cannot fetch it there.
export function load(opts) {
  if (typeof opts === 'string' || opts instanceof URL) opts = { url: opts };
  opts = opts || {};
  if (!opts.factory && !opts.url) {
    if (opts.chapter === undefined) {
      return Promise.reject(new Error('load: say which module, {chapter: "roofline"} or a URL of scaling-<chapter>.mjs'));
    }
    if (typeof opts.chapter !== 'string' || !CHAPTER.test(opts.chapter)) {
      return Promise.reject(new Error(`load: chapter must be a chapter folder name like "roofline", got ${JSON.stringify(opts.chapter)}`));
    }
  }
  const part = opts.problems || opts.heavy ? 'problems' : '';
  const key = opts.factory ? opts.factory : String(opts.url || `chapter:${opts.chapter}${part ? `:${part}` : ''}`);
  if (!cache.has(key)) {
    const p = open(opts, part);
    cache.set(key, p);
    p.catch(() => cache.delete(key));  // a failed load may be retried
  }
  return cache.get(key);
}

async function open(opts, part) {
  let factory = opts.factory;
  let url = opts.url ? new URL(String(opts.url), isNode ? `file://${process.cwd()}/` : location.href) : null;
  if (!factory) {
    if (!url) {
      const candidates = chapterUrls(opts.chapter, part);
      url = candidates[0];
      if (isNode) {
        for (const c of candidates) if (await nodeExists(c)) { url = c; break; }
      }
    }
    factory = (await import(url.href)).default;
  }
  const moduleOpts = {};
  if (opts.wasmBinary) moduleOpts.wasmBinary = opts.wasmBinary;
  else if (isNode && url) {
    const fs = await import('node:fs');
    moduleOpts.wasmBinary = fs.readFileSync(new URL(url.href.replace(/\.m?js$/, '.wasm')));
  }
  if (opts.locateFile) moduleOpts.locateFile = opts.locateFile;
  const mod = await factory(moduleOpts);
  return wrap(mod);
}

// Wraps any object with an `api(text) -> text` function (the wasm module, or a test double).
export function wrap(mod) {
  function request(req) {
    let text;
    try {
      text = mod.api(JSON.stringify(req));
    } catch (e) {
      // The core catches everything itself; this only guards against a broken module.
      return { ok: false, error: { code: 'internal', message: `module call failed: ${e && e.message ? e.message : e}`, field: '' } };
    }
    try {
      return JSON.parse(text);
    } catch (e) {
      return { ok: false, error: { code: 'internal', message: 'module returned malformed JSON', field: '' } };
    }
  }
  const withGiven = (req, given) => (given && Object.keys(given).length ? { ...req, given } : req);
  return {
    request,
    list: () => request({ op: 'list' }),
    chips: () => request({ op: 'chips' }),
    units: () => request({ op: 'units' }),
    calc: (name, inputs = {}) => request({ op: 'calc', name, inputs }),
    problem: (id, given) => request(withGiven({ op: 'problem', id }, given)),
    check: (id, answers = {}, given) => request(withGiven({ op: 'check', id, answers }, given)),
    variant: (id, seed) => request({ op: 'variant', id, seed }),
    parse: (text, unit) => request({ op: 'parse', text: String(text), unit }),
  };
}

export default load;
