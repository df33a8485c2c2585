// A Web Worker of the companion's pages: holds its own instance of a chapter's second module and
// answers the heavy calculators (the planner, the sweeps, a pasted log) off the page's main thread
// (lib/core.js compute). Message in: {id, url (the chapter's scaling-<id>-problems.mjs), name,
// inputs}; out: {id, response}.
import { load } from '../wasm/scaling.js';

self.onmessage = async (e) => {
  const { id, url, name, inputs } = e.data;
  let response;
  try {
    response = (await load(url)).calc(name, inputs);
  } catch (err) {
    response = { ok: false, error: { code: 'internal', message: `the module did not load: ${err?.message || err}`, field: '' } };
  }
  self.postMessage({ id, response });
};
