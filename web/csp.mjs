// The site's Content-Security-Policy: no inline scripts, no eval; wasm may compile. web/serve.mjs
// sends it as an HTTP header; web/build.mjs writes a <meta> copy into every page for static hosts,
// without the directives a <meta> policy cannot carry (the browser ignores them there).
const DIRECTIVES = [
  ['default-src', "'self'"],
  ['script-src', "'self' 'wasm-unsafe-eval'"],
  ['style-src', "'self' 'unsafe-inline'"],  // uPlot and KaTeX set style attributes
  ['img-src', "'self' data:"],
  ['font-src', "'self'"],
  ['worker-src', "'self'"],  // lib/worker.js: the heavy calculators off the main thread
  ['base-uri', "'none'"],  // no <base> may redirect the pages' relative URLs
  ['frame-ancestors', "'self'"],  // no other site frames our pages (embedding goes through lib/embed.js)
];
const HEADER_ONLY = new Set(['frame-ancestors', 'report-uri', 'sandbox']);

const join = (ds) => ds.map(([k, v]) => `${k} ${v}`).join('; ');

export const CSP = join(DIRECTIVES);
export const CSP_META = join(DIRECTIVES.filter(([k]) => !HEADER_ONLY.has(k)));
