// The chapter modules under test, found from the chapter records rather than named by hand: every
// build/wasm/bin/scaling-<name>.mjs is instantiated and asked for `list`, whose `chapters` holds
// the record of the one chapter it carries (CONTRACTS.md). A build whose `list` has no `chapters`
// yet falls back to the name in the file name, with `record` null.
import fs from 'node:fs';

// SB_WASM_BIN: another folder of built modules (a copy), as web/build.mjs takes SB_WASM_DIR.
export const bin = process.env.SB_WASM_BIN ? new URL(`file://${process.env.SB_WASM_BIN.replace(/\/?$/, '/')}`) : new URL('../../build/wasm/bin/', import.meta.url);

// A fresh instance of a module file (its own heap, not the wrapper's cached one).
export async function instantiate(file) {
  const { default: factory } = await import(new URL(`${file}.mjs`, bin).href);
  return factory({ wasmBinary: fs.readFileSync(new URL(`${file}.wasm`, bin)) });
}

let found = null;

// [{id, record, file, list}] for every module in build/wasm/bin, in the book's order when the
// records give it (else by name). Throws when there is none or a module's record disagrees with
// its file name.
export function chapterModules() {
  found ??= (async () => {
    const files = fs.readdirSync(bin)
      .map((f) => f.match(/^(scaling-[a-z_][a-z0-9_]*)\.mjs$/)?.[1])
      .filter((f) => f && fs.existsSync(new URL(`${f}.wasm`, bin)));
    if (!files.length) throw new Error(`no scaling-<chapter>.mjs in ${bin.pathname}: build the wasm modules first`);
    const out = [];
    for (const file of files) {
      const list = JSON.parse((await instantiate(file)).api('{"op":"list"}'));
      if (list.ok !== true) throw new Error(`${file}: list failed: ${JSON.stringify(list.error)}`);
      let record = null;
      let id = file.slice('scaling-'.length);
      if (Array.isArray(list.chapters)) {
        if (list.chapters.length !== 1) throw new Error(`${file}: list names ${list.chapters.length} chapters, not its own one`);
        record = list.chapters[0];
        if (`scaling-${record.id}` !== file) throw new Error(`${file} carries the record of chapter ${record.id}`);
        id = record.id;
      }
      out.push({ id, record, file, list });
    }
    return out.sort((a, b) => (a.record && b.record ? a.record.part - b.record.part : a.id.localeCompare(b.id)));
  })();
  return found;
}
