#!/usr/bin/env bash
# Adding a chapter needs no edit outside its folder: this adds a throwaway chapter folder
# (chapter.json, a model on a base, one calculator, one problem, register.cpp, page.html) to the
# already configured native and wasm trees, builds only what it needs (its objects, its module, the
# CLI's relink, the site into a scratch folder), checks that `scaling list --json`, the module's
# `list` and the site (catalogue, home page, nav, its page) show it and that the CLI and the module
# answer its calculator and problem, then removes it again and relinks the CLI. The trap removes it on
# any failure too, so the tree is left as it was. Run by scripts/test.sh after the full build.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
id=newchapter_probe      # the folder and C++ namespace
prefix=newchapter-probe  # its catalogue prefix: not the id, as for applied_training
dir=chapters/$id
export NODE_PATH=/usr/share/nodejs  # Debian's emscripten (see scripts/build.sh)
[ -x /usr/bin/python3 ] && export EMSDK_PYTHON="${EMSDK_PYTHON:-/usr/bin/python3}"  # no pyenv shim per em++ call

if [ ! -f build/native/build.ninja ] || [ ! -f build/wasm/build.ninja ]; then
  echo "tests/newchapter: configure and build the native and wasm trees first (scripts/build.sh)" >&2
  exit 2
fi
if [ -e "$dir" ]; then
  echo "tests/newchapter: $dir exists already; remove it first" >&2
  exit 2
fi

# A part of the book no chapter folder claims yet (the highest free one), else 12.
part=12
for p in $(seq 12 -1 1); do
  if ! grep -qsE "\"part\": *$p\b" chapters/*/chapter.json; then
    part=$p
    break
  fi
done

log=$(mktemp)
cleanup() {
  local rc=$?
  rm -rf "$root/$dir" "$root"/build/wasm/bin/scaling-$id.* "$root"/build/wasm/bin/scaling-$id-problems.*
  # The CLI again without the chapter (the build re-globs the folders and reconfigures).
  (cd "$root" && cmake --build --preset native --target scaling >>"$log" 2>&1) || rc=1
  if [ $rc -ne 0 ]; then
    cat "$log" >&2
    echo "tests/newchapter: FAILED (the folder is removed again)" >&2
  fi
  rm -f "$log"
  exit $rc
}
trap cleanup EXIT

mkdir -p "$dir"
# Its record agrees with web/parts.json on its Part's title and slug (the site build checks it).
node -e '
  const [root, part, prefix] = process.argv.slice(1);
  const p = require(root + "/web/parts.json").parts.find((q) => q.part === Number(part));
  const rec = { prefix, part: Number(part), title: p ? p.title : "A Throwaway Chapter", slug: p ? p.slug : prefix, bases: ["roofline"] };
  if (!p) Object.assign(rec, { short: "Throwaway", group: "Tests" });
  console.log(JSON.stringify(rec));
' "$root" "$part" "$prefix" >"$dir/chapter.json"
cat >"$dir/model.hpp" <<'CPP'
// A throwaway chapter's model (tests/newchapter/run.sh): one equation on its base's, as a record.
#pragma once
#include "core/formula.hpp"

namespace sb::newchapter_probe {
inline constexpr Symbol kSymbols[] = {
    sym("R2", "flop_per_B", 1e-3, 1e9, "twice the ridge"),
    sym("peak", "flop_per_s", 1e9, 1e17, "peak FLOPs/s"),
    sym("BW", "B_per_s", 1e6, 1e14, "bandwidth")};
// Twice the roofline chapter's critical intensity.
double twice_ridge(double peak_flops_per_s, double bw_bytes_per_s);
inline constexpr Formula kTwiceRidge =
    record("R2", "2 * peak / BW", "flop_per_B", "probe", "peak BW", kSymbols,
           [](const double* x) { return twice_ridge(x[0], x[1]); });
inline constexpr const Formula* kFormulas[] = {&kTwiceRidge};
}  // namespace sb::newchapter_probe
CPP
cat >"$dir/model.cpp" <<'CPP'
#include "chapters/newchapter_probe/model.hpp"

#include "chapters/roofline/model.hpp"

namespace sb::newchapter_probe {
double twice_ridge(double peak, double bw) { return 2 * roofline::critical_intensity(peak, bw); }
}  // namespace sb::newchapter_probe
CPP
cat >"$dir/calculators.cpp" <<'CPP'
#include "chapters/newchapter_probe/model.hpp"
#include "core/registry.hpp"

namespace sb::newchapter_probe {
namespace {
void ridge_calc(const Inputs& in, Trace& tr, Result& r) {
  const double p = in.num("peak"), bw = in.num("bw");
  r.value("twice_ridge", tr.step("Twice the ridge", kTwiceRidge, {p, bw}), "flop_per_B",
          "twice the ridge");
}
constexpr Param kParams[] = {num("peak", "flop_per_s", 1e14, "peak"),
                             num("bw", "B_per_s", 1e12, "bandwidth")};
constexpr Calculator kCalculators[] = {{.name = "newchapter-probe.ridge",
                                        .title = "Twice the ridge",
                                        .doc = "a throwaway calculator",
                                        .params = kParams,
                                        .run = ridge_calc}};
}  // namespace
void add_calculators(Registry& r) { r.add(kCalculators); }
}  // namespace sb::newchapter_probe
CPP
cat >"$dir/problems.cpp" <<'CPP'
#include "chapters/newchapter_probe/model.hpp"
#include "core/registry.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::newchapter_probe {
namespace {
constexpr Param kGiven[] = {given("peak", "flop_per_s", 1e14, "peak"),
                            given("bw", "B_per_s", 1e12, "bandwidth")};
constexpr Slot kSlots[] = {number("twice_ridge", "flop_per_B", "twice the ridge")};
constexpr Problem kProblems[] = {{
    .id = "newchapter-probe.Q1",
    .title = "Twice the ridge",
    .statement = "Peak {peak}, bandwidth {bw}: twice the ridge?",
    .kind = "numeric",
    .given = kGiven,
    .slots = kSlots,
    .solve = [](const Inputs& in, Trace&) {
      return Answers{{"twice_ridge", twice_ridge(in.num("peak"), in.num("bw"))}};
    },
}};
}  // namespace
void add_problems(Registry& r) { r.add(kProblems); }
}  // namespace sb::newchapter_probe
CPP
cat >"$dir/page.html" <<'HTML'
<p class="sb-lede" id="probe-content">A throwaway chapter's own content.</p>
HTML
cat >"$dir/register.cpp" <<'CPP'
#include "chapters/newchapter_probe/model.hpp"
#include "core/registry.hpp"

namespace sb::newchapter_probe {
void add_calculators(Registry& r);
void add_problems(Registry& r);
void register_calculators(Registry& r) { add_calculators(r); }
void register_problems(Registry& r) {
  r.add(kFormulas);  // the formula sheet (op formulas) is the exercises module's
  add_problems(r);
}
}  // namespace sb::newchapter_probe
CPP

t0=$(date +%s.%N)
cmake --build --preset native --target scaling >>"$log" 2>&1
t1=$(date +%s.%N)
cmake --build --preset wasm --target scaling_$id scaling_${id}_problems >>"$log" 2>&1
t2=$(date +%s.%N)

# 100e12 / 1e12 = 100 FLOPs/B, twice that 200.
build/native/bin/scaling list --json | node -e '
  const [id, prefix] = process.argv.slice(1);
  const r = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const ch = r.chapters.find((c) => c.id === id);
  if (!ch || ch.prefix !== prefix || ch.bases.join() !== "roofline") throw new Error("CLI list: no record " + JSON.stringify(r.chapters));
  if (!r.calculators.some((c) => c.name === prefix + ".ridge" && c.chapter === id)) throw new Error("CLI list: no calculator");
  if (!r.problems.some((p) => p.id === prefix + ".Q1" && p.chapter === id)) throw new Error("CLI list: no problem");
' "$id" "$prefix"
build/native/bin/scaling calc $prefix.ridge --json | node -e '
  const r = JSON.parse(require("fs").readFileSync(0, "utf8"));
  if (r.values.twice_ridge.value !== 200) throw new Error("CLI calc: " + JSON.stringify(r.values));'
build/native/bin/scaling check $prefix.Q1 twice_ridge=200 >/dev/null
node --input-type=module -e '
  const [root, id, prefix] = process.argv.slice(1);
  const { load } = await import(root + "/wasm/scaling.js");
  const sb = await load({ chapter: id });
  const r = sb.list();
  if (r.chapters.length !== 1 || r.chapters[0].id !== id || r.chapters[0].prefix !== prefix)
    throw new Error("module list: " + JSON.stringify(r.chapters));
  if (r.calculators.map((c) => c.name).join() !== prefix + ".ridge") throw new Error("module calculators");
  if (r.problems.length) throw new Error("the calculators module lists problems");
  const c = sb.calc(prefix + ".ridge", {});
  if (!c.ok || c.values.twice_ridge.value !== 200) throw new Error("module calc: " + JSON.stringify(c));
  if (sb.check(prefix + ".Q1", {}).error?.code !== "not_in_module") throw new Error("the calculators module grades");
  // Its exercises: the second module.
  const ex = await load({ chapter: id, problems: true });
  if (ex.list().problems.map((p) => p.id).join() !== prefix + ".Q1") throw new Error("module problems");
  const g = ex.check(prefix + ".Q1", { twice_ridge: "200" });
  if (!g.ok || g.results[0].verdict !== "correct") throw new Error("module check: " + JSON.stringify(g));
  // Its base is model code only: the roofline chapter'"'"'s calculators are not in the module.
  if (sb.calc("roofline.matmul", {}).ok) throw new Error("module has roofline.matmul");
' "$root" "$id" "$prefix"

# The site data and pages, built into a scratch folder: the record is in the catalogue, live on the
# home page, in every page's nav, and its page holds its own content in the shared frame.
site=$(mktemp -d)
node --input-type=module -e '
  const [root, site, id, prefix] = process.argv.slice(1);
  const fs = await import("node:fs");
  const { build } = await import(root + "/web/build.mjs");
  await build({ quiet: true, out: site });
  const read = (f) => fs.readFileSync(site + "/" + f, "utf8");
  const rec = JSON.parse(read("data/catalog.json")).chapters.find((c) => c.id === id);
  if (!rec) throw new Error("site: no record in data/catalog.json");
  const link = `href="${rec.slug}.html"`;
  for (const f of ["index.html", "roofline.html", "hardware.html"])
    if (!read(f).includes(link)) throw new Error(`site: ${f} does not link ${rec.slug}.html`);
  const page = read(`${rec.slug}.html`);
  if (!page.includes("probe-content") || !page.includes(rec.title) || !page.includes("sb-nav"))
    throw new Error("site: the chapter page lacks its content, title or frame");
' "$root" "$site" "$id" "$prefix" || { rm -rf "$site"; exit 1; }
rm -rf "$site"

awk -v id="$id" -v part="$part" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
  printf "tests/newchapter: chapter %s (part %s) built and listed: CLI %.1f s, module %.1f s\n",
         id, part, b - a, c - b }'
