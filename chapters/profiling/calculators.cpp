// The table of the profiling chapter's calculators and their inputs.
#include "chapters/profiling/calculators.hpp"

#include "chapters/profiling/hlo_sample.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::profiling {
namespace {

constexpr Param zero_ok(Param p) {
  p.positive = false;
  return p;
}
constexpr Param with_default(Param p, Text def) {
  p.def_text = def;
  return p;
}

constexpr Param kHloParams[] = {
    with_default(long_text("module",
                           "HLO text: one instruction, a computation or a whole module "
                           "as a compile prints it"),
                 kSampleModule),
    chip_param("v5e", "the chip the ops run on"),
    zero_ok(num("devices", "count", 0,
                "devices in the program, for replica_groups={} (0: not known)", 0, 1e6, true)),
    zero_ok(num("hbm_bw", "B_per_s", 0, "HBM bandwidth where the tables have none (0: the chip's)",
                0, 1e14))};
constexpr Param kTilingParams[] = {
    text("array", "f32[3,5]{1,0:T(2,2)}", "an array with its layout, as HLO prints it")};
constexpr Param kWorkedParams[] = {
    num("batch", "count", 32, "sequences in the global batch", 1, 1e6, true),
    num("seq_len", "tokens", 1024, "tokens per sequence", 1, 1e7, true),
    num("d_model", "count", 8192, "model width D", 1, 1e6, true),
    num("d_ff", "count", 32768, "MLP width F", 1, 1e7, true),
    num("n_heads", "count", 32, "attention heads", 1, 1e4, true),
    num("d_qkv", "count", 256, "width of one head", 1, 1e5, true),
    num("dp", "count", 4, "data-parallel degree", 1, 1e4, true),
    num("mp", "count", 2, "model-parallel degree", 1, 1e4, true),
    chip_param("v2", "the chip: the chapter's is TPU v2 (each TensorCore a device)"),
    zero_ok(num("hbm_bw", "B_per_s", 0,
                "HBM bandwidth per chip: TPU v2's is not known, enter it (0: the tables')", 0,
                1e14)),
    zero_ok(num("reported_up", "s", 0.096, "the profile's up-projection time (0: none)", 0, 1e4)),
    zero_ok(
        num("reported_rs", "s", 0.00113, "the profile's ReduceScatter time (0: none)", 0, 1e4))};

constexpr Calculator kProfilingCalculators[] = {
    {.name = "profiling.hlo",
     .title = "HLO cost reader",
     .doc = "Pasted HLO read instruction by instruction: shapes, bytes with tile padding, FLOPs, "
            "collective payloads and group sizes, and each op's roofline time on a chip.",
     .params = kHloParams,
     // Up to 16 MiB of text: read in the page's worker. Its run: register_heavy.
     .heavy = true,
     .command = "hlo"},
    {.name = "profiling.tiling",
     .title = "Tiled layouts",
     .doc = "An array and its layout with tiles: the padded shape, the memory blow-up and the "
            "order of the elements in memory.",
     .params = kTilingParams,
     .run = tiling_calc},
    {.name = "profiling.worked",
     .title = "The worked profile on a TPU v2 slice",
     .doc = "The mock Transformer's ops on 8 TPU v2 cores (or the page's chip): each op's "
            "roofline time beside the time the chapter's profile shows.",
     .params = kWorkedParams,
     .run = worked_calc},
};

}  // namespace

void add_calculators(Registry& r) { r.add(kProfilingCalculators); }
void add_heavy(Registry& r) { r.add_run("profiling.hlo", hlo_calc); }

}  // namespace sb::profiling
