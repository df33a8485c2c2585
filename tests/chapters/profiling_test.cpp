// The profiling chapter: the HLO reader (chapters/profiling/hlo.hpp) on instructions, computations
// and modules as XLA prints them, with the arithmetic of every expected value written out; the
// costs on a chip; the tiling and worked-profile calculators; and bad input.
#include <gtest/gtest.h>

#include <string>

#include "chapters/profiling/cost.hpp"
#include "chapters/profiling/hlo.hpp"
#include "chapters/profiling/hlo_sample.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "tests/support/support.hpp"

using namespace sb;
using namespace sb::profiling;
using sb::test::near_rel;

namespace {

const hlo::Instruction& by_name(const hlo::Module& m, const std::string& name) {
  for (const auto& in : m.instructions)
    if (in.name == name) return in;
  ADD_FAILURE() << "no instruction " << name;
  static hlo::Instruction none;
  return none;
}

}  // namespace

TEST(ProfilingHlo, BookDotOneLine) {
  // The book's dot: [256,16] x [128,256] contracting 256 -> [16,128];
  // FLOPs = 2 x 16 x 128 x 256 = 1,048,576; bytes = 16 x 128 x 4 = 8192.
  const auto m = hlo::parse(
      "%dot.4 = f32[16,128]{1,0} dot(f32[256,16]{1,0} %convert.3, f32[128,256]{1,0} %Arg_0.1), "
      "lhs_contracting_dims={0}, rhs_contracting_dims={1}");
  ASSERT_EQ(m.instructions.size(), 1u);
  const auto& d = m.instructions[0];
  EXPECT_EQ(d.opcode, "dot");
  EXPECT_EQ(d.shape.dtype, "f32");
  EXPECT_EQ(d.shape.dims, (std::vector<int64_t>{16, 128}));
  near_rel(*d.flops, 1048576);
  near_rel(hlo::logical_bytes(d.shape), 8192);
  EXPECT_TRUE(m.skipped.empty());
}

TEST(ProfilingHlo, BatchedDotAndNamesWithoutShapes) {
  // Operands printed without shapes are found by name in the computation. Batched dot:
  // out [4,128,512], contracting 64: 2 x 4 x 128 x 512 x 64 = 33,554,432.
  const auto m = hlo::parse(
      "ENTRY main {\n  q = bf16[4,128,64]{2,1,0} parameter(0)\n"
      "  k = bf16[4,512,64]{2,1,0} parameter(1)\n"
      "  ROOT d = bf16[4,128,512]{2,1,0} dot(q, k), lhs_batch_dims={0}, "
      "lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}\n}\n");
  near_rel(*by_name(m, "d").flops, 33554432);
  EXPECT_TRUE(by_name(m, "d").root);
  // Traffic: q 4x128x64x2 = 65,536 + k 4x512x64x2 = 262,144 + out 4x128x512x2 = 524,288.
  near_rel(by_name(m, "d").traffic_bytes, 851968);
}

TEST(ProfilingHlo, Convolution) {
  // out 8x32x32x64 = 524,288 elements; 16 input features; 3x3 = 9 taps:
  // 2 x 524,288 x 16 x 9 = 150,994,944. Depthwise (feature_group_count 16): out 8x32x32x16 =
  // 131,072; 16/16 = 1 feature: 2 x 131,072 x 1 x 9 = 2,359,296.
  const auto m = hlo::parse(
      "ENTRY main {\n  p0 = f32[8,32,32,16]{3,2,1,0} parameter(0)\n"
      "  k = f32[3,3,16,64]{3,2,1,0} parameter(1)\n"
      "  c = f32[8,32,32,64]{3,2,1,0} convolution(p0, k), window={size=3x3 pad=1_1x1_1}, "
      "dim_labels=b01f_01io->b01f, metadata={op_name=\"a \\\"q\\\" {b}\"}\n"
      "  dw = f32[8,32,32,16]{3,2,1,0} convolution(p0, k), window={size=3x3 pad=1_1x1_1}, "
      "dim_labels=b01f_01io->b01f, feature_group_count=16\n}\n");
  EXPECT_TRUE(m.skipped.empty()) << m.skipped[0].reason;
  near_rel(*by_name(m, "c").flops, 150994944);
  near_rel(*by_name(m, "dw").flops, 2359296);
}

TEST(ProfilingHlo, TilesPadAndMemorySpaces) {
  // f32[3,5] with T(2,2): [4,6], 24 x 4 = 96 B against 15 x 4 = 60 B (1.6x).
  const auto s = hlo::parse_shape("f32[3,5]{1,0:T(2,2)}", "array");
  EXPECT_EQ(hlo::padded_dims(s), (std::vector<int64_t>{4, 6}));
  near_rel(hlo::padded_bytes(s), 96);
  near_rel(hlo::logical_bytes(s), 60);
  // The older text's comma reads the same.
  EXPECT_EQ(hlo::padded_dims(hlo::parse_shape("f32[3,5]{1,0,T(2,2)}", "a")),
            (std::vector<int64_t>{4, 6}));
  // bf16[3,200]{1,0:T(8,128)(2,1)S(1)}: [8,256] = 2048 x 2 = 4096 B; the (2,1) sub-tiles divide
  // each (8,128) tile and pad nothing; memory space 1 (VMEM).
  const auto b = hlo::parse_shape("bf16[3,200]{1,0:T(8,128)(2,1)S(1)}", "a");
  near_rel(hlo::padded_bytes(b), 4096);
  EXPECT_EQ(b.memory_space, 1);
  // Layout {0,1}: dim 0 is minor. f32[5,3]{0,1:T(2,2)} in memory is [3,5] -> [4,6].
  EXPECT_EQ(hlo::padded_dims(hlo::parse_shape("f32[5,3]{0,1:T(2,2)}", "a")),
            (std::vector<int64_t>{4, 6}));
  // A 1-D array with T(1024)(128): 1000 -> 1024 elements; s4 is half a byte: 512 B.
  near_rel(hlo::padded_bytes(hlo::parse_shape("s4[1000]{0:T(1024)(128)}", "a")), 512);
}

TEST(ProfilingHlo, Collectives) {
  const auto m = hlo::parse(
      "%ag = bf16[16,1024]{1,0} all-gather(bf16[4,1024]{1,0} %x), replica_groups={{0,1,2,3},"
      "{4,5,6,7}}, dimensions={0}\n"
      "%rs = f32[256]{0} reduce-scatter(f32[1024]{0} %y), replica_groups=[2,4]<=[8], "
      "dimensions={0}, to_apply=%add\n"
      "%ar = f32[1024]{0} all-reduce(f32[1024]{0} %y), replica_groups={}, to_apply=%add\n"
      "%a2a = bf16[8,128]{1,0} all-to-all(bf16[8,128]{1,0} %z), "
      "replica_groups=[4,2]<=[2,4]T(1,0), dimensions={0}\n"
      "%cp = bf16[8,128]{1,0} collective-permute(bf16[8,128]{1,0} %z), "
      "source_target_pairs={{0,1},{1,2},{2,3},{3,0}}\n"
      "%s = f32[1024]{0} all-reduce-start(f32[1024]{0} %y), replica_groups={{0,1}}, "
      "to_apply=%add\n"
      "%d = f32[1024]{0} all-reduce-done(f32[1024]{0} %s)\n",
      std::nullopt);
  ASSERT_TRUE(m.skipped.empty()) << m.skipped[0].reason;
  // all-gather: its result, 16 x 1024 x 2 = 32,768 B over groups of 4.
  near_rel(*by_name(m, "ag").payload_bytes, 32768);
  EXPECT_EQ(*by_name(m, "ag").group_size, 4);
  // reduce-scatter: its operand, 1024 x 4 = 4096 B; iota [2,4]: 2 groups of 4.
  near_rel(*by_name(m, "rs").payload_bytes, 4096);
  EXPECT_EQ(*by_name(m, "rs").group_size, 4);
  // Empty groups and no device count: unknown.
  EXPECT_FALSE(by_name(m, "ar").group_size.has_value());
  EXPECT_EQ(*by_name(m, "a2a").group_size, 2);
  near_rel(*by_name(m, "a2a").payload_bytes, 2048);  // 8 x 128 x 2
  EXPECT_EQ(by_name(m, "cp").pairs, 4);
  near_rel(*by_name(m, "cp").payload_bytes, 2048);
  EXPECT_TRUE(by_name(m, "s").counted);
  EXPECT_FALSE(by_name(m, "d").counted);  // the pair counts at its start
  // With --devices 8 the empty groups are every device.
  EXPECT_EQ(
      *by_name(hlo::parse("%ar = f32[4]{0} all-reduce(f32[4]{0} %y), replica_groups={}", 8), "ar")
           .group_size,
      8);
}

TEST(ProfilingHlo, SampleModuleFusionsAndFusedReduceScatter) {
  const auto m = hlo::parse(kSampleModule);
  EXPECT_EQ(m.name, "jit_step");
  EXPECT_EQ(m.computations, 4);
  EXPECT_TRUE(m.skipped.empty()) << m.skipped[0].reason;
  // fusion.1's convolution: 2 x (8 x 1024 x 16384) x 8192 = 2,199,023,255,552 (2^41).
  near_rel(*by_name(m, "fusion.1").flops, 2199023255552.0);
  EXPECT_FALSE(by_name(m, "convolution.2").counted);  // counted in its fusion
  // The fused ReduceScatter pays its operand: 8 x 1024 x 16384 x 2 = 268,435,456 B, in the
  // groups of its all-reduce ([4,2]<=[8]: 2).
  const auto& rs = by_name(m, "fusion.3");
  EXPECT_EQ(rs.collective, hlo::Collective::ReduceScatter);
  near_rel(*rs.payload_bytes, 268435456);
  EXPECT_EQ(*rs.group_size, 2);
  // all-gather-start: the gathered half of its result, 16 x 1024 x 8192 x 2 = 268,435,456 B.
  near_rel(*by_name(m, "all-gather-start").payload_bytes, 268435456);
}

TEST(ProfilingHlo, OddLinesAreSkippedWithLineAndColumn) {
  const auto m = hlo::parse(
      "%a = f32[4]{0} add(f32[4]{0} %x, f32[4]{0} %x)\n"
      "%b = f32[4]{0} frobnicate(f32[4]{0} %x)\n"
      "%c = q17[4]{0} add(f32[4]{0} %x, f32[4]{0} %x)\n"
      "%d = f32[99999999999,99999999999] add(%x, %x)\n"
      "%e = f32[4]{0} add(f32[4]{0} %x, f32[4]{0} %x\n"
      "%f = f32[4]{0} add(f32[4]{0} %x), metadata={op_name=\"never closes}\n");
  ASSERT_EQ(m.instructions.size(), 1u);
  ASSERT_EQ(m.skipped.size(), 5u);
  EXPECT_EQ(m.skipped[0].line, 2);
  EXPECT_EQ(m.skipped[0].reason, "column 16: unknown opcode 'frobnicate'");
  EXPECT_EQ(m.skipped[1].reason, "column 6: unknown dtype 'q17'");
  EXPECT_NE(m.skipped[2].reason.find("more than 1e18 elements"), std::string::npos);
  EXPECT_NE(m.skipped[3].reason.find("never closes"), std::string::npos);
  EXPECT_NE(m.skipped[4].reason.find("never closes"), std::string::npos);
  sb::test::expect_error([] { hlo::parse_shape("f32[3,5]{1,0:T(2,2)", "array"); }, "array",
                         "bad_hlo", "column");
  sb::test::expect_error([] { hlo::parse_shape("f33[3]", "array"); }, "array", "bad_hlo",
                         "column 1: unknown dtype 'f33'");
}

TEST(ProfilingHlo, Dtypes) {
  EXPECT_EQ(*hlo::dtype_bits("pred"), 8);
  EXPECT_EQ(*hlo::dtype_bits("s4"), 4);
  EXPECT_EQ(*hlo::dtype_bits("f8e4m3fn"), 8);
  EXPECT_EQ(*hlo::dtype_bits("f8e5m2"), 8);
  EXPECT_EQ(*hlo::dtype_bits("c128"), 128);
  EXPECT_FALSE(hlo::dtype_bits("f7").has_value());
  // A tuple's bytes add up: 2 x 4 + 4 + 1 = 13.
  near_rel(hlo::logical_bytes(hlo::parse_shape("(f32[2]{0}, s32[], /*index=2*/pred[])", "t")), 13);
}

TEST(ProfilingCost, RooflineAndCollectiveOnV5e) {
  const ChipTerms c = chip_terms(hw::chip("v5e"));
  // The book's dot on a v5e: 1,048,576 FLOPs / 1.97e14 = 5.3e-9 s; traffic: operands
  // 256x16x4 = 16,384 and 128x256x4 = 131,072, result 16x128x4 = 8192: 155,648 B over the HBM
  // bandwidth, about 1.9e-7 s: memory-bound.
  const auto m = hlo::parse(
      "%dot.4 = f32[16,128]{1,0} dot(f32[256,16]{1,0} %a, f32[128,256]{1,0} %b), "
      "lhs_contracting_dims={0}, rhs_contracting_dims={1}");
  const OpTime t = op_time(m.instructions[0], c);
  EXPECT_EQ(t.bound, "memory");
  near_rel(*t.time, 155648 / hw::chip("v5e").get("hbm_bw"));
  // A 2-way ReduceScatter of 134,217,728 B on v5e's 4.5e10 one-way links: V / (2 W_uni).
  const auto r = hlo::parse(
      "%rs = bf16[8,1024,4096]{2,1,0} reduce-scatter(bf16[8,1024,8192]{2,1,0} %y), "
      "replica_groups={{0,1}}, dimensions={2}, to_apply=%add");
  near_rel(*op_time(r.instructions[0], c).time,
           134217728 / (2 * hw::chip("v5e").get("ici_bw_oneway")));
  // A GPU has no ICI figure: the collective's time stays unknown, and says why.
  const ChipTerms g = chip_terms(hw::chip("h100"));
  EXPECT_FALSE(op_time(r.instructions[0], g).time.has_value());
  EXPECT_FALSE(g.missing.empty());
}

TEST(ProfilingCalc, HloCalculatorJson) {
  const json r = sb::test::calc("profiling.hlo", {{"chip", "v5e"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["instructions"].size(), 18u);  // 3 + 3 + 3 + 9 lines of instructions
  EXPECT_TRUE(r["skipped"].empty());
  EXPECT_GT(r["totals"]["step_s"].get<double>(), 0);
  const json bad = sb::test::calc("profiling.hlo", {{"module", "nothing here at all\n"}});
  EXPECT_FALSE(bad["ok"].get<bool>());
  EXPECT_EQ(bad["error"]["field"], "module");
  EXPECT_NE(bad["error"]["message"].get<std::string>().find("line 1, column"), std::string::npos);
}

// An HBM bandwidth of a denormal's size would make every HBM time infinite: an error naming
// hbm_bw in both calculators that take it; 0 still means the chip's (or none, on TPU v2).
TEST(ProfilingCalc, TinyHbmBandwidthIsAnError) {
  for (const char* name : {"profiling.hlo", "profiling.worked"}) {
    const json bad = sb::test::calc(name, {{"hbm_bw", 5e-324}});
    ASSERT_FALSE(bad["ok"].get<bool>()) << name;
    EXPECT_EQ(bad["error"]["field"], "hbm_bw") << name;
    EXPECT_TRUE(sb::test::calc(name, {{"hbm_bw", 0}})["ok"].get<bool>()) << name;
  }
}

TEST(ProfilingCalc, TilingAndWorked) {
  const json t = sb::test::calc("profiling.tiling");
  near_rel(sb::test::value_of(t, "blowup"), 1.6);
  // The tile order of T(2,2) on [4,6]: row 0 reads 0 1 4 5 8 9 (two elements of each tile).
  EXPECT_EQ(t["order"]["offsets"][0], (json{0, 1, 4, 5, 8, 9}));
  EXPECT_EQ(sb::test::error_field(sb::test::calc("profiling.tiling", {{"array", "f32[3,5]{1,0:"}})),
            "array");
  // Up-projection: 2 x 32,768 x 8192 x 32,768 / (8 x 23e12) = 0.0956 s.
  const json w = sb::test::calc("profiling.worked");
  near_rel(sb::test::value_of(w, "up_time"), 2.0 * 32768 * 8192 * 32768 / (8 * 23e12));
  near_rel(sb::test::value_of(w, "rs_time"), 134217728 / 1.2e11);
}

// The worked profile takes TPU v2 from the tables: 23e12 per core is its 4.6e13 over 2 cores, its
// link 1.2e11 both ways; its HBM bandwidth is the reader's, per chip, half of it per core.
TEST(ProfilingCalc, WorkedTakesTpuV2FromTheTables) {
  const json w = sb::test::calc("profiling.worked");
  ASSERT_TRUE(w["ok"].get<bool>()) << w.dump().substr(0, 300);
  EXPECT_FALSE(w["values"].contains("up_hbm_time"));
  EXPECT_NE(w["notes"].dump().find("TPU v2's HBM bandwidth is not known"), std::string::npos);
  // 7e11 B/s a chip, 3.5e11 a core; the up-projection moves 2 x (8192 x 8192 + 8192 x 16384 +
  // 8192 x 16384) = 671,088,640 B: 671088640 / 3.5e11 = 1.917 ms.
  const json h = sb::test::calc("profiling.worked", {{"hbm_bw", 7e11}});
  near_rel(sb::test::value_of(h, "up_hbm_time"), 671088640 / 3.5e11);
  // A GPU has no ICI link for the ReduceScatter: an error naming the chip.
  EXPECT_EQ(sb::test::error_field(sb::test::calc("profiling.worked", {{"chip", "h100"}})), "chip");
  // On v5e (one core a chip, 1.97e14; link 9e10 both ways) the tables give every figure.
  const json e = sb::test::calc("profiling.worked", {{"chip", "v5e"}});
  near_rel(sb::test::value_of(e, "up_time"), 2.0 * 32768 * 8192 * 32768 / (8 * 1.97e14));
  near_rel(sb::test::value_of(e, "up_hbm_time"), 671088640 / 8.2e11);
}

// Without the reader's figure, TPU v2's HBM bandwidth is an error that names the field asking and
// says it is not known; the HLO reader keeps the FLOPs and link times and leaves HBM times unknown.
TEST(ProfilingCalc, TpuV2WithoutHbmBandwidth) {
  const json m = sb::test::calc("roofline.matmul", {{"chip", "v2"}});
  ASSERT_FALSE(m["ok"].get<bool>());
  EXPECT_EQ(m["error"]["field"], "memory");
  EXPECT_NE(m["error"]["message"].get<std::string>().find("TPU v2's HBM bandwidth is not known"),
            std::string::npos)
      << m.dump();
  sb::test::expect_error([] { sb::hw::chip("tpu-v2").get("hbm_bw", "hbm_bw"); }, "hbm_bw",
                         "no_figure", "TPU v2's HBM bandwidth is not known");
  const json r = sb::test::calc("profiling.hlo", {{"chip", "tpu-v2"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 300);
  EXPECT_NE(r["notes"].dump().find("Not in the tables for TPU v2: its HBM bandwidth (enter it)"),
            std::string::npos);
  EXPECT_GT(r["totals"]["ops_without_time"].get<int>(), 0);
  const json g = sb::test::calc("profiling.hlo", {{"chip", "tpu-v2"}, {"hbm_bw", 7e11}});
  EXPECT_EQ(g["totals"]["ops_without_time"], 0);
}

TEST(ProfilingHlo, LayoutNamingADimTwiceIsSkipped) {
  // {0,0} is no order of two dims: the line is skipped, never read as some other shape.
  const auto m = hlo::parse("%a = f32[128,256]{0,0} parameter(0)");
  EXPECT_TRUE(m.instructions.empty());
  ASSERT_EQ(m.skipped.size(), 1u);
  EXPECT_NE(m.skipped[0].reason.find("names dim 0 twice"), std::string::npos);
}

// W1's last step counts a shard's tokens in whole digits: 32 x 1024 / 4 = 8192 by default; at the
// inputs' tops, 1e7 sequences x 1e16 tokens / 1 = 1e23, past any integer type (the fuzzer's find).
TEST(ProfilingProblems, AShardsTokenCountIsWrittenAtAnySize) {
  const json d = sb::test::problem("profiling.W1");
  ASSERT_TRUE(d["ok"].get<bool>()) << d.dump().substr(0, 400);
  EXPECT_NE(d["trace"].dump().find("Each shard holds 8192 tokens"), std::string::npos);
  const json big =
      sb::test::problem("profiling.W1", {{"global_batch_seqs", 1e7}, {"seq_len", 1e16}, {"dp", 1}});
  ASSERT_TRUE(big["ok"].get<bool>()) << big.dump().substr(0, 400);
  EXPECT_NE(big["trace"].dump().find("Each shard holds 1e23 tokens"), std::string::npos);
}
