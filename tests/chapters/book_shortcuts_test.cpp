// The landed chapters grade a reader who follows the book as correct: each problem computes,
// through its model, the values the book's own shortcuts give (a binary size by its decimal name
// carried through, a rounded constant, coefficients rounded before solving) and the slips that fit
// (N for N-1, the per-hop latency left out, one link or both directions). Values derived by hand in
// the comments; the answers typed are those a reader following the book's text would write.
#include <gtest/gtest.h>

#include <string>

#include "core/api.hpp"
#include "tests/support/support.hpp"

using sb::json;

namespace {

// The result of one slot of a check of problem `id`.
json result(const std::string& id, const json& answers, const std::string& slot) {
  const json r = sb::test::check(id, answers);
  EXPECT_TRUE(r.value("ok", false)) << r.dump();
  for (const auto& x : r.value("results", json::array()))
    if (x.value("slot", "") == slot) return x;
  ADD_FAILURE() << "no result for " << slot;
  return json::object();
}

// Correct by `rule`, with a note holding `part`.
void accepted(const std::string& id, const std::string& slot, const std::string& answer,
              const std::string& rule, const std::string& part = "") {
  const json x = result(id, {{slot, answer}}, slot);
  EXPECT_EQ(x.value("verdict", ""), "correct")
      << id << " " << slot << "=" << answer << " " << x.dump();
  EXPECT_EQ(x.value("rule", ""), rule) << id << " " << slot << "=" << answer << " " << x.dump();
  EXPECT_NE(x.value("note", "").find(part), std::string::npos) << x.dump();
}

// Wrong, with a hint holding `part`.
void slipped(const std::string& id, const std::string& slot, const std::string& answer,
             const std::string& part) {
  const json x = result(id, {{slot, answer}}, slot);
  EXPECT_EQ(x.value("verdict", ""), "wrong")
      << id << " " << slot << "=" << answer << " " << x.dump();
  EXPECT_NE(x.value("hint", "").find(part), std::string::npos) << x.dump();
}

}  // namespace

// The CLI case of the issue: 512 x 4096 = 2^21 = 2097152 tokens written "2e6" (1 digit), and
// 2^21 / 2048 = 1024 written "1000" (1 digit); "2M" and "1k" read as 2 x 2^20 and 2^10.
TEST(BookShortcuts, RooflineE5RoundNumbers) {
  accepted("roofline.E5", "global_batch_tokens", "2e6", "digits", "correct to 1 digit");
  accepted("roofline.E5", "local_batch_tokens", "1000", "digits", "correct to 1 digit");
  accepted("roofline.E5", "global_batch_tokens", "2M", "binary");
  accepted("roofline.E5", "local_batch_tokens", "1k", "binary");
}

// roofline.Q3: B_crit(1024) / B_crit(4096) = 226.31 / 136.09 = 1.663: "almost doubles" is 2 to
// 1 digit. Keeping only the weight bytes gives Q2's 120.1 = 1 x 240.24 / 2, a slip here.
TEST(BookShortcuts, RooflineQ3) {
  accepted("roofline.Q3", "b_crit_ratio_small_to_large", "2", "digits", "exact 1.663");
  slipped("roofline.Q3", "b_crit_d1024", "120", "only the weight bytes");
}

// roofline.Q5: the dense peak is 1.979e15 / 2 = 9.895e14; B_crit = 9.895e14 / 3.35e12 = 295.4:
// "about 300" is within 2%. The sparse figure gives 1.979e15 / 3.35e12 = 590.7, a slip.
TEST(BookShortcuts, RooflineQ5) {
  accepted("roofline.Q5", "b_crit", "300", "exact");
  slipped("roofline.Q5", "peak_dense", "1.979e15", "sparsity");
  slipped("roofline.Q5", "b_crit", "591", "sparse peak");
  // Q2's int8 weights taken as bf16: 2 x 240.24 / 2 = 240.2, with the weights' own size named.
  slipped("roofline.Q2", "b_crit", "240", "1-byte weights");
}

// tpus.Q6: A = int8[131072, 131072] = 2^34 B, which the book calls 16 GB = 16e9 B and carries
// through: 16e9 / 16 = 1e9 B per chip over 1.6e10 B/s = 62.5 ms (exact 2^30 / 1.6e10 = 67.1 ms);
// 15/16 x 16e9 = 15e9 B over 2 x 4.5e10 = 166.7 ms (exact 179.0 ms); 16e9 / 8.2e11 = 19.5 ms
// (exact (2^34 + 2^21) / 8.2e11 = 20.95 ms); 2 x 8 x 16e9 = 2.56e11 FLOPs / 1.97e14 = 1.30 ms
// (exact 2^38 / 1.97e14 = 1.395 ms); serial 62.5 + 166.7 + 19.5 + 1.3 = 250 ms (exact 268.4).
TEST(BookShortcuts, TpusQ6DecimalGigabytesCarriedThrough) {
  accepted("tpus.Q6.b", "bytes_per_chip", "1e9", "book", "2^34 B (16 GiB) as 16 GB");
  accepted("tpus.Q6.b", "t_pcie", "62.5 ms", "book", "exact 67.11 ms");
  accepted("tpus.Q6.c", "bytes_received", "15e9", "book");
  accepted("tpus.Q6.c", "t_ici", "167 ms", "book");
  accepted("tpus.Q6.c", "t_allgather_estimate", "178 ms", "book");
  accepted("tpus.Q6.d", "t_hbm", "19.5 ms", "book", "small vector");
  accepted("tpus.Q6.e", "flops", "2.7e11", "exact");  // 1.8% below 2.749e11
  accepted("tpus.Q6.e", "t_flops", "1.3 ms", "book", "exact 1.395 ms");
  accepted("tpus.Q6.f", "t_pipelined_lower", "167 ms", "book");
  accepted("tpus.Q6.f", "t_serial_upper", "250 ms", "book", "every stage");
  // Both directions of each link (2 x 2 x 4.5e10) give half of 179.0 ms; one link gives twice.
  slipped("tpus.Q6.c", "t_ici", "89.48 ms", "bidirectional");
  slipped("tpus.Q6.c", "t_ici", "357.9 ms", "over one link");
  // All of A through one PCIe link: 2^34 / 1.6e10 = 1.074 s.
  slipped("tpus.Q6.b", "t_pcie", "1.074 s", "one PCIe link");
}

// tpus.Q1: 2e11 x 2 B / 32 = 1.25e10 B per chip over 1.2e12 B/s = 10.42 ms, "around 10 ms".
// tpus.PQ1: 8 x 128 x 4 x 1.75e9 = 7.168e12 per core, "7e12"; 4.59e14 / 2 / 7.168e12 = 32.0, and
// the prose's 2.5e14 per core gives 2.5e14 / 7.168e12 = 34.9, "35x".
TEST(BookShortcuts, TpusRoundFigures) {
  accepted("tpus.Q1", "t_load", "10 ms", "digits", "exact 10.42 ms");
  accepted("tpus.PQ1", "vpu_flops_per_s_core", "7e12", "digits");
  accepted("tpus.PQ1", "mxu_to_vpu_ratio", "35", "book", "2.5e14 FLOPs/s per core");
  // E2: 8960 x 5e14 = 4.48e18, "4e18" to 1 digit; the table's 4.59e14 gives 4.11e18.
  accepted("tpus.E2", "pod_flops_per_s", "4e18", "digits");
  accepted("tpus.E2", "pod_flops_per_s", "4.11e18", "book", "spec table");
  // E4: 1.2e12 / 1.6e10 = 75, "close to 100x": the nearest power of ten.
  accepted("tpus.E4", "hbm_to_pcie_ratio", "100", "book", "nearest power of ten");
  // E8: 64 x 8 x 128 x 4 = 262144 B, written 256 kB.
  accepted("tpus.E8", "vreg_bytes_per_core", "256000", "book", "256 KiB");
  // Q2.a: 256 x 2e14 (the rounded 1.97e14) = 5.12e16, 1.5% above 5.043e16: within 2%.
  accepted("tpus.Q2.a", "pod_flops_per_s", "5.1e16", "exact");
  // Q4.a: the coefficients rounded to 2 digits, 1.3e8, 6.7e7 and 2.0e4, cross at
  // 6.7e7 / (1.3e8 x 8.2e11 / 3.94e14 - 2e4) = 6.7e7 / 250558 = 267.4 (exact 259.3).
  accepted("tpus.Q4.a", "b_crit", "267", "book", "1.3e8");
  accepted("tpus.Q4.a", "flops_per_token", "1.3e8", "digits");
}

// tpus.Q5: on a v5e 4x4 (no wraparound) (0,0) -> (3,3) is 3 + 3 = 6 hops; a torus would make it
// 1 + 1 = 2. The array is 8 x 128 x 8192 x 2 = 2^24 B; over 2 links of 4.5e10 the bulk takes
// 2^24 / 9e10 = 186.4 us and the last byte 6 us more, 192.4 us. The book's 1.7e7 B gives
// 188.9 us and 194.9 us.
TEST(BookShortcuts, TpusQ5Slips) {
  slipped("tpus.Q5.a", "hops", "2", "wraparound");
  slipped("tpus.Q5.b", "t_transfer", "186.4 us", "the last byte");
  slipped("tpus.Q5.b", "send_bw_Bps", "45 GB/s", "one link");
  accepted("tpus.Q5.b", "t_transfer", "194 us", "exact");
  accepted("tpus.Q5.b", "t_bulk", "188.9 us", "exact");
}

// sharding: PQ0 reads 1 MiB as 1e6 B: 1e6 / 3.4e12 = 294 ns (exact 2^20 / 3.4e12 = 308.4 ns).
// PQ2.b's shard 32768 B written 32 kB. Q7's weights 2 x 8192 x 32768 = 2^29 B called 512 MB.
TEST(BookShortcuts, ShardingDecimalNames) {
  accepted("sharding.PQ0", "hbm_load_time_s", "294 ns", "book", "1 MiB");
  accepted("sharding.PQ2.b", "shard_bytes", "32e3", "book");
  accepted("sharding.Q7", "weight_bytes_each", "512 MB", "book", "512 MiB");
  accepted("sharding.Q7", "weight_bytes_each", "537 MB", "exact");
  accepted("sharding.Q7", "input_bytes", "2e6", "book");
}

// sharding.Q4's thresholds are bounds: B < C / W = 4.59e14 / 1.8e11 = 2550, D > 2C / W = 5100,
// X < D W / 2C = 8192 / 5100 = 1.606.
TEST(BookShortcuts, ShardingQ4Bounds) {
  const json r =
      sb::test::check("sharding.Q4", {{"b_threshold_strategy1_comms_bound", "B < 2550"},
                                      {"d_threshold_strategy2_wins_large_batch", "D > 5100"},
                                      {"x_max_strategy2_compute_bound", "X < 1.6"}});
  for (const auto& x : r["results"])
    if (x["slot"].get<std::string>().find("threshold") != std::string::npos ||
        x["slot"].get<std::string>().find("x_max") != std::string::npos)
      EXPECT_EQ(x["verdict"], "correct") << x.dump();
  EXPECT_EQ(result("sharding.Q4", {{"x_max_strategy2_compute_bound", "X > 1.6"}},
                   "x_max_strategy2_compute_bound")["verdict"],
            "wrong");
}

// sharding.PQ2.a: an AllGather of 4 shards of 8.4 MB on a v5e axis of 4 without wraparound takes
// 3 x 8388608 / 4.5e10 = 559.2 us. The ideal ring's V / W_ici = 33554432 / 9e10 = 372.8 us and
// all 4 shards through the link, 4 x 8388608 / 4.5e10 = 745.7 us, are slips.
TEST(BookShortcuts, ShardingRingSlips) {
  slipped("sharding.PQ2.a", "t_open_line_s", "372.8 us", "ideal-ring");
  slipped("sharding.PQ2.a", "t_open_line_s", "745.7 us", "N-1 arrive");
  // Q3: a wrapped axis of 4 takes floor(4/2) = 2 hops; the open line's 3 is a slip.
  slipped("sharding.Q3", "hops", "3", "floor(4/2) = 2");
}
