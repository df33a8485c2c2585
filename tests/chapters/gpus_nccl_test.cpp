// The nccl-tests reader of the GPU chapter (chapters/gpus/nccl.hpp) on every variant of a log:
// the header lines, the older and newer column sets, both halves, mpirun's output tags, a footer
// or none, rows cut off, #wrong rows, runs written over each other, unknown collectives, ranks
// and GPUs, and lines that are no table at all. The logs are made up for these tests.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "chapters/gpus/nccl.hpp"
#include "chapters/gpus/nccl_sample.hpp"
#include "core/error.hpp"
#include "tests/support/support.hpp"

using namespace sb;
using namespace sb::gpus;
using sb::test::near_rel;

namespace {

// An old all_gather_perf: no redop or root column, 'error' instead of '#wrong', Rank lines with no
// Group field, two nodes of 8 A100s under mpirun -np 16, no footer.
constexpr const char* kOldAllGather =
    R"(+ mpirun -np 16 -H a100-01:8,a100-02:8 ./build/all_gather_perf -b 1M -e 64M -f 2 -g 1
# nThread 1 nGpus 1 minBytes 1048576 maxBytes 67108864 step: 2(factor) warmup iters: 5 iters: 20 validation: 1
#
# Using devices
#   Rank  0 Pid   2201 on    a100-01 device  0 [0x07] NVIDIA A100-SXM4-80GB
#   Rank  1 Pid   2202 on    a100-01 device  1 [0x0f] NVIDIA A100-SXM4-80GB
#   Rank  2 Pid   2203 on    a100-01 device  2 [0x47] NVIDIA A100-SXM4-80GB
#   Rank  3 Pid   2204 on    a100-01 device  3 [0x4e] NVIDIA A100-SXM4-80GB
#   Rank  4 Pid   2205 on    a100-01 device  4 [0x87] NVIDIA A100-SXM4-80GB
#   Rank  5 Pid   2206 on    a100-01 device  5 [0x90] NVIDIA A100-SXM4-80GB
#   Rank  6 Pid   2207 on    a100-01 device  6 [0xb7] NVIDIA A100-SXM4-80GB
#   Rank  7 Pid   2208 on    a100-01 device  7 [0xbd] NVIDIA A100-SXM4-80GB
#   Rank  8 Pid   3318 on    a100-02 device  0 [0x07] NVIDIA A100-SXM4-80GB
#   Rank  9 Pid   3319 on    a100-02 device  1 [0x0f] NVIDIA A100-SXM4-80GB
#   Rank 10 Pid   3320 on    a100-02 device  2 [0x47] NVIDIA A100-SXM4-80GB
#   Rank 11 Pid   3321 on    a100-02 device  3 [0x4e] NVIDIA A100-SXM4-80GB
#   Rank 12 Pid   3322 on    a100-02 device  4 [0x87] NVIDIA A100-SXM4-80GB
#   Rank 13 Pid   3323 on    a100-02 device  5 [0x90] NVIDIA A100-SXM4-80GB
#   Rank 14 Pid   3324 on    a100-02 device  6 [0xb7] NVIDIA A100-SXM4-80GB
#   Rank 15 Pid   3325 on    a100-02 device  7 [0xbd] NVIDIA A100-SXM4-80GB
#
#                                             out-of-place                       in-place
#       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error
#        (B)    (elements)             (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
     1048576         16384   float    120.5    8.70    8.16  0e+00    118.2    8.87    8.32  0e+00
     2097152         32768   float    161.0   13.03   12.21  0e+00    160.3   13.08   12.27  0e+00
     4194304         65536   float    241.3   17.38   16.30  0e+00    240.9   17.41   16.32  0e+00
     8388608        131072   float    402.2   20.86   19.55  0e+00    401.7   20.88   19.58  0e+00
    16777216        262144   float    723.9   23.18   21.73  0e+00    724.4   23.16   21.71  0e+00
    33554432        524288   float   1367.6   24.54   23.00  0e+00   1370.1   24.49   22.96  0e+00
    67108864       1048576   float   2654.8   25.28   23.70  0e+00   2652.0   25.31   23.72  0e+00
)";

// Open MPI's --tag-output on every line, NCCL INFO lines among them, a row cut off at the end.
constexpr const char* kTagged =
    R"([1,0]<stdout>:# nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
[1,0]<stdout>:#
[1,0]<stdout>:# Using devices
[1,0]<stdout>:#  Rank  0 Group  0 Pid  11 on node-a device  0 [0x18] NVIDIA H100 80GB HBM3
[1,0]<stdout>:#  Rank  1 Group  0 Pid  12 on node-a device  1 [0x2a] NVIDIA H100 80GB HBM3
[1,0]<stdout>:#  Rank  2 Group  0 Pid  13 on node-b device  0 [0x18] NVIDIA H100 80GB HBM3
[1,0]<stdout>:#  Rank  3 Group  0 Pid  14 on node-b device  1 [0x2a] NVIDIA H100 80GB HBM3
[1,1]<stderr>:node-a:12:12 [1] NCCL INFO Bootstrap : Using eth0:10.1.0.2<0>
[1,0]<stdout>:#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
[1,0]<stdout>:#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
[1,0]<stdout>:      262144         65536     float     sum      -1    30.10    8.71   13.06      0    29.95    8.75   13.13      0
[1,0]<stdout>:      524288        131072     float     sum      -1    40.20   13.04   19.56      0    40.11   13.07   19.61      0
[1,0]<stdout>:     1048576        262144     float     sum      -1    60.40   17.36   26.04      0    60.33
)";

// A "[0] " launcher prefix, #wrong N/A (validation off), one row with errors, no Rank lines and no
// -np: the ranks come from busbw / algbw (2 (n-1)/n = 1.75 gives n = 8).
constexpr const char* kPrefixed = R"([0] # Collective test starting: all_reduce_perf
[0] #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
[0]      1000000        250000     float     sum      -1    20.00   50.00   87.50    N/A    20.00   50.00   87.50    N/A
[0]     10000000       2500000     float     sum      -1   110.00   90.91  159.09    N/A   110.00   90.91  159.09    N/A
[0]    100000000      25000000     float     sum      -1  1010.00   99.01  173.27      3  1010.00   99.01  173.27      0
[0]   1000000000     250000000     float     sum      -1 10010.00   99.90  174.83    N/A 10010.00   99.90  174.83    N/A
)";

// Every number finite; null is allowed here: the report says "unknown" with it.
bool no_nan(const json& j) {
  if (j.is_number()) return std::isfinite(j.get<double>());
  if (j.is_object() || j.is_array())
    for (const auto& x : j)
      if (!no_nan(x)) return false;
  return true;
}

std::string table_row(double size, double t_us, double f) {
  double alg = size / (t_us * 1e-6) / 1e9;
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "%12.0f %12.0f  float  sum  -1  %9.2f %7.2f %7.2f  0  %9.2f %7.2f %7.2f  0\n", size,
                size / 4, t_us, alg, alg * f, t_us, alg, alg * f);
  return buf;
}

}  // namespace

TEST(GpusNccl, NewColumnSetWithHeaderAndFooter) {
  nccl::Log log = nccl::parse(kSampleLog);
  EXPECT_EQ(log.collective, "all_reduce");
  EXPECT_EQ(log.ranks, 8);
  EXPECT_EQ(log.ranks_from, "Rank lines");
  ASSERT_EQ(log.gpus.size(), 1u);
  EXPECT_EQ(log.gpus[0], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(log.hosts.size(), 1u);
  ASSERT_EQ(log.rows.size(), 16u);
  EXPECT_EQ(log.rows.back().size_B, 8589934592.0);
  EXPECT_EQ(*log.rows.back().out.busbw_GBps, 358.85);
  EXPECT_EQ(*log.rows.back().in.time_us, 41226);
  EXPECT_EQ(log.avg_busbw_GBps, 137.5722);
  EXPECT_TRUE(log.skipped.empty());
  EXPECT_TRUE(log.warnings.empty());
}

TEST(GpusNccl, OldColumnSetUnderMpirun) {
  nccl::Log log = nccl::parse(kOldAllGather);
  EXPECT_EQ(log.collective, "all_gather");
  EXPECT_EQ(log.ranks, 16);  // 16 Rank lines (and -np 16 x nGpus 1 x nThread 1)
  EXPECT_EQ(log.ranks_from, "Rank lines");
  EXPECT_EQ(log.rows.size(), 7u);
  EXPECT_EQ(log.hosts.size(), 2u);
  EXPECT_FALSE(log.avg_busbw_GBps);
  EXPECT_TRUE(log.skipped.empty());
  json r = nccl::report(kOldAllGather, "old.log");
  EXPECT_EQ(r["largest_busbw_GBps"], 23.70);
  ASSERT_TRUE(r["fit"].is_object());
  // Two nodes of A100: the tables give no A100 scale-out figure, so no line-rate share.
  EXPECT_TRUE(r["fit"]["line_rate_fraction"].is_null());
  EXPECT_NE(r["fit"]["reason"].get<std::string>().find("A100"), std::string::npos);
}

TEST(GpusNccl, TaggedLinesCutRowAndInfoLines) {
  nccl::Log log = nccl::parse(kTagged);
  EXPECT_FALSE(log.collective);  // nothing names the binary
  EXPECT_EQ(log.ranks, 4);
  EXPECT_EQ(log.hosts.size(), 2u);
  EXPECT_EQ(log.rows.size(), 2u);
  ASSERT_EQ(log.skipped.size(), 2u);
  EXPECT_EQ(log.skipped[0].line, 8);
  EXPECT_NE(log.skipped[0].reason.find("not a row"), std::string::npos);
  EXPECT_EQ(log.skipped[1].line, 13);
  EXPECT_NE(log.skipped[1].reason.find("cut off"), std::string::npos);
  // The reader's option fills what the log does not say; the log's own wins over it.
  EXPECT_EQ(nccl::parse(kTagged, "all_reduce").collective, "all_reduce");
  nccl::Log other = nccl::parse(kSampleLog, "all_gather");
  EXPECT_EQ(other.collective, "all_reduce");
  EXPECT_FALSE(other.warnings.empty());
}

TEST(GpusNccl, PrefixedNaWrongAndRanksFromBusbw) {
  nccl::Log log = nccl::parse(kPrefixed);
  EXPECT_EQ(log.collective, "all_reduce");
  EXPECT_EQ(log.ranks, 8);
  EXPECT_EQ(log.ranks_from, "busbw/algbw");
  EXPECT_TRUE(log.gpus.empty());
  ASSERT_EQ(log.rows.size(), 4u);
  EXPECT_EQ(log.rows[2].out.wrong, 3);
  ASSERT_EQ(log.warnings.size(), 1u);
  EXPECT_NE(log.warnings[0].find("#wrong"), std::string::npos);
  // The three clean rows are exactly 10 us + size / 100 GB/s: the fit finds them.
  nccl::Fit f = nccl::fit(log);
  ASSERT_TRUE(f.ok);
  EXPECT_EQ(f.points, 3);
  near_rel(f.latency_s, 10e-6, 1e-6);
  near_rel(f.bandwidth_Bps, 100e9, 1e-6);
  near_rel(*f.bus_Bps, 175e9, 2e-3);  // NCCL's factor from the log, 1.75 to two digits
  // No GPU named: the line-rate share says why.
  json r = nccl::report(kPrefixed, "p.log");
  EXPECT_TRUE(r["fit"]["line_rate_fraction"].is_null());
  EXPECT_NE(r["fit"]["reason"].get<std::string>().find("--gpu"), std::string::npos);
  // Given the GPU and one node, 175 GB/s of 450 GB/s.
  json g = nccl::report(kPrefixed, "p.log", "", std::nullopt, {"h100", 1});
  near_rel(g["fit"]["line_rate_fraction"].get<double>(), 175.0 / 450, 2e-3);
  EXPECT_EQ(sb::test::field_of([] {
              nccl::report(kPrefixed, "p.log", "", std::nullopt, {"v5p", 1});
            }),
            "gpu");
}

// -np x nGpus x nThread past an int (1e6 x 8192 x 1e6, the fuzzer's find) is refused with a
// warning, and the ranks fall back to busbw / algbw (8, as above). -np 4 x nGpus 2 x nThread 1
// gives 8 and stands.
TEST(GpusNccl, ALaunchProductPastAnyClusterIsNotUsed) {
  nccl::Log huge = nccl::parse(
      "mpirun -np 1000000 ./all_reduce_perf\n"
      "# nThread 1000000 nGpus 8192 minBytes 8\n" +
      std::string(kPrefixed));
  EXPECT_EQ(huge.ranks, 8);
  EXPECT_EQ(huge.ranks_from, "busbw/algbw");
  bool warned = false;
  for (const auto& w : huge.warnings) warned |= w.find("nGpus x nThread") != std::string::npos;
  EXPECT_TRUE(warned);
  nccl::Log fine = nccl::parse("mpirun -np 4 ./all_reduce_perf\n# nThread 1 nGpus 2 minBytes 8\n" +
                               std::string(kPrefixed));
  EXPECT_EQ(fine.ranks, 8);
  EXPECT_EQ(fine.ranks_from, "-np");
}

TEST(GpusNccl, RunsWrittenOverEachOtherGetNoFit) {
  std::string text = std::string(kSampleLog) + std::string(kSampleLog);
  nccl::Log log = nccl::parse(text);
  EXPECT_EQ(log.rows.size(), 32u);
  bool warned = false;
  for (const auto& w : log.warnings) warned = warned || w.find("out of order") != std::string::npos;
  EXPECT_TRUE(warned);
  EXPECT_FALSE(nccl::fit(log).ok);
  EXPECT_TRUE(nccl::report(text, "x")["fit"].is_null());
}

TEST(GpusNccl, UnknownGpuStillFits) {
  std::string text =
      "# Collective test starting: sendrecv_perf\n"
      "#  Rank  0 Group  0 Pid 1 on h8 device  0 [0x18] NVIDIA H800\n"
      "#  Rank  1 Group  0 Pid 1 on h8 device  1 [0x2a] NVIDIA H800\n";
  for (double s : {1e5, 1e6, 1e7, 1e8}) text += table_row(s, 8 + s / 1e11 * 1e6, 1);
  json r = nccl::report(text, "h800.log");
  EXPECT_EQ(r["collective"], "sendrecv");
  EXPECT_EQ(r["ranks"], 2);
  ASSERT_TRUE(r["fit"].is_object());
  near_rel(r["fit"]["latency_s"].get<double>(), 8e-6, 1e-3);
  near_rel(r["fit"]["bandwidth_Bps"].get<double>(), 1e11, 1e-3);
  EXPECT_TRUE(r["fit"]["line_rate_fraction"].is_null());
  EXPECT_NE(r["fit"]["reason"].get<std::string>().find("H800"), std::string::npos);
}

// A bus factor of 0 is no bus factor (found by fuzz_nccl): one rank's all_reduce moves nothing
// (2 (1 - 1) / 1 = 0), and a log's busbw column of 0 says nothing either. The fit stays in the
// algorithm's convention: t = 8 us + size / 1e11 B/s gives 1e11 B/s, not 0.
TEST(GpusNccl, ABusFactorOfZeroLeavesTheAlgorithmBandwidth) {
  std::string text = "# Collective test starting: all_reduce_perf\n";
  for (double s : {1e5, 1e6, 1e7, 1e8}) text += table_row(s, 8 + s / 1e11 * 1e6, 0);
  json r = nccl::report(text, "one.log", "all_reduce", 1, {"", std::nullopt});
  ASSERT_TRUE(r["fit"].is_object());
  EXPECT_EQ(r["fit"]["convention"], "algorithm");
  near_rel(r["fit"]["bandwidth_Bps"].get<double>(), 1e11, 1e-3);
}

TEST(GpusNccl, SendRecvRanksStayUnknown) {
  std::string text = "# Collective test starting: sendrecv_perf\n";
  for (double s : {1e6, 1e7}) text += table_row(s, 10 + s / 1e11 * 1e6, 1);
  nccl::Log log = nccl::parse(text);
  EXPECT_FALSE(log.ranks);  // busbw = algbw for sendrecv says nothing about n
  EXPECT_EQ(nccl::parse(text, "", 2).ranks, 2);
}

TEST(GpusNccl, NoCompleteRowAndOddText) {
  json r = nccl::report("NCCL INFO hello\n#  size count\n12 34\n", "empty.log");
  EXPECT_TRUE(r["rows"].empty());
  EXPECT_EQ(r["skipped"].size(), 2u);
  EXPECT_EQ(r["skipped"][1]["line"], 3);
  for (const char* odd : {"", "\n\n\n", "#", "[", "[1,0]<stdout>:", "nan nan nan", "1e999 2 3",
                          "-8 2 float sum -1 1 1 1 0 1 1 1 0", "8 2 float sum -1 0 0 0 0 0 0 0 0",
                          "8 2 float sum -1 inf 1 1 0 1 1 1 0", "\x01\x02\xff\xfe",
                          // a header with a time before the size (the fuzzer's find): no layout
                          "# a time size\n1 2 3\n"}) {
    json o = nccl::report(odd, "odd");
    EXPECT_TRUE(o["rows"].empty()) << odd;
    EXPECT_TRUE(no_nan(o)) << odd;
  }
}

// A bounded share of what fuzz/fuzz_nccl.cpp does, in every test run: the sample log cut at
// random places, with random bytes flipped and lines repeated; the reader never throws, writes no
// non-finite number, and numbers every skipped line within the text.
TEST(GpusNccl, MangledLogsNeverBreakTheReader) {
  std::mt19937 rng(12);
  const std::string base(kSampleLog);
  for (int i = 0; i < 400; ++i) {
    std::string t = base.substr(0, rng() % (base.size() + 1));
    for (int k = rng() % 8; k > 0 && !t.empty(); --k)
      t[rng() % t.size()] = static_cast<char>(rng());
    if (i % 3 == 0) t += t.substr(rng() % (t.size() + 1));
    size_t lines = 1;
    for (char c : t) lines += c == '\n';
    json r;
    ASSERT_NO_THROW(r = nccl::report(t, "mangled")) << i;
    EXPECT_TRUE(no_nan(r)) << i;
    EXPECT_NO_THROW((void)r.dump()) << i;  // only valid UTF-8 in it
    for (const auto& s : r["skipped"]) EXPECT_LE(s["line"].get<size_t>(), lines) << i;
  }
}
