// The chapter modules under test, found from the chapter records rather than named by hand: every
// build/wasm/bin/scaling-<name>.mjs (a chapter's calculators module) is instantiated and asked for
// `list`, whose `chapters` holds the record of the one chapter it carries (CONTRACTS.md), and so is
// its exercises module, scaling-<name>-problems.mjs, which, where the chapter has heavy
// calculators, carries the calculators again, the heavy ones with their code. A build whose `list` has no `chapters` yet falls back to the name in the file name, with
// `record` null.
import fs from 'node:fs';

// SB_WASM_BIN: another folder of built modules (a copy), as web/build.mjs takes SB_WASM_DIR.
export const bin = process.env.SB_WASM_BIN ? new URL(`file://${process.env.SB_WASM_BIN.replace(/\/?$/, '/')}`) : new URL('../../build/wasm/bin/', import.meta.url);

// The module file that computes calculator `c` (an entry of `list`) of chapter module `m`.
export const fileFor = (m, c) => (c.heavy ? m.heavyFile : m.file);

// A fresh instance of a module file (its own heap, not the wrapper's cached one).
export async function instantiate(file) {
  const { default: factory } = await import(new URL(`${file}.mjs`, bin).href);
  return factory({ wasmBinary: fs.readFileSync(new URL(`${file}.wasm`, bin)) });
}

let found = null;

// [{id, record, file, problemsFile, heavyFile, list, calcList, problemsList}] for every chapter in
// build/wasm/bin, in the book's order when the records give it (else by name): `list` has the
// calculators of the first module and the problems of the second; heavyFile, the module that
// computes the heavy calculators (the second), is null where no calculator is heavy. Throws when
// there is none, when a chapter lacks its exercises module, or when a module's record disagrees
// with its file name.
export function chapterModules() {
  found ??= (async () => {
    const files = fs.readdirSync(bin)
      .map((f) => f.match(/^(scaling-[a-z_][a-z0-9_]*)\.mjs$/)?.[1])
      .filter((f) => f && fs.existsSync(new URL(`${f}.wasm`, bin)));
    if (!files.length) throw new Error(`no scaling-<chapter>.mjs in ${bin.pathname}: build the wasm modules first`);
    const out = [];
    const listOf = async (f) => {
      if (!fs.existsSync(new URL(`${f}.wasm`, bin))) throw new Error(`${f}.wasm is not in ${bin.pathname}: build the wasm modules`);
      const list = JSON.parse((await instantiate(f)).api('{"op":"list"}'));
      if (list.ok !== true) throw new Error(`${f}: list failed: ${JSON.stringify(list.error)}`);
      return list;
    };
    for (const file of files) {
      const problemsFile = `${file}-problems`;
      const calcList = await listOf(file);
      const problemsList = await listOf(problemsFile);
      if (JSON.stringify(calcList.chapters) !== JSON.stringify(problemsList.chapters)) throw new Error(`${problemsFile} carries another record than ${file}`);
      const list = { ...calcList, problems: problemsList.problems };
      let record = null;
      let id = file.slice('scaling-'.length);
      if (Array.isArray(list.chapters)) {
        if (list.chapters.length !== 1) throw new Error(`${file}: list names ${list.chapters.length} chapters, not its own one`);
        record = list.chapters[0];
        if (`scaling-${record.id}` !== file) throw new Error(`${file} carries the record of chapter ${record.id}`);
        id = record.id;
      }
      const heavyFile = list.calculators.some((c) => c.heavy) ? problemsFile : null;
      out.push({ id, record, file, problemsFile, heavyFile, list, calcList, problemsList });
    }
    return out.sort((a, b) => (a.record && b.record ? a.record.part - b.record.part : a.id.localeCompare(b.id)));
  })();
  return found;
}
