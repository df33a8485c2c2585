// Measured collectives: the output of NVIDIA's nccl-tests (all_reduce_perf, all_gather_perf,
// reduce_scatter_perf, alltoall_perf, sendrecv_perf, ...) read as a table, and the chapter's
// model time = latency + size / bandwidth fitted to it. The parser is a pure function of the text:
// it never throws on a log and never crashes (fuzz/fuzz_nccl.cpp); what it cannot read it lists
// in `skipped` with the line number and a reason. What the log does not say (the collective, the
// rank count) stays unknown rather than guessed.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"

namespace sb::gpus::nccl {

// One half of a row (out-of-place or in-place). A value the log prints as N/A is absent.
struct Half {
  std::optional<double> time_us, algbw_GBps, busbw_GBps;
  double wrong = 0;  // #wrong (new column set) or error (old); 0 when N/A
};
struct Row {
  int line = 0;  // 1-based line of the log
  double size_B = 0;
  Half out, in;
};
struct Skipped {
  int line = 0;
  std::string reason;
};

struct Log {
  std::optional<std::string> collective;  // "all_reduce", "all_gather", ... (the binary's stem)
  std::optional<int> ranks;
  std::string ranks_from;         // "Rank lines", "-np", "busbw/algbw", "--ranks"
  std::vector<std::string> gpus;  // device names, each once, in the order met
  std::vector<std::string> hosts;
  std::optional<double> avg_busbw_GBps;  // the footer, when there is one
  std::vector<Row> rows;                 // complete rows, in the log's order
  std::vector<Skipped> skipped;
  std::vector<std::string> warnings;
  bool in_network = false;  // the log mentions NVLS, SHARP or CollNet
};

// Reads a log. `collective` and `ranks` are the reader's options, used only where the log is
// silent (a disagreement is a warning; the log wins).
Log parse(std::string_view text, std::string_view collective = {},
          std::optional<int> ranks = std::nullopt);

// NCCL's bus-bandwidth factor busbw / algbw for a collective over n ranks: 2(n-1)/n for an
// AllReduce, (n-1)/n for AllGather, ReduceScatter and AllToAll, 1 for the rest (A.4 (7)).
// nullopt when the collective or n is unknown.
std::optional<double> bus_factor(const std::optional<std::string>& collective,
                                 const std::optional<int>& n);

// time = latency + size / bandwidth by least squares on the relative error, over the out-of-place
// half of the complete rows with nothing wrong. `bandwidth_Bps` is the algorithm bandwidth
// size / (time - latency); `bus_Bps` the same in NCCL's bus convention (the log's own
// busbw / algbw, else bus_factor), absent when neither is known.
struct Fit {
  bool ok = false;
  std::string reason;  // why there is no fit
  double latency_s = 0, bandwidth_Bps = 0;
  std::optional<double> bus_Bps;
  int points = 0;
  double rms_rel_err = 0;
};
Fit fit(const Log& log);

// The cluster a line rate belongs to: the GPU (an id or device name of data/chips.json) and the
// nodes, from the log or from the reader's options.
struct Cluster {
  std::string gpu;
  std::optional<int> nodes;
};

// The whole report, as `scaling fit-collective --json` and the page's paste box show it:
// {collective, ranks, gpus, rows, largest_busbw_GBps, fit, warnings, skipped} (docs/API.md).
// An InputError (field `log`) when no complete row is read; its message names `source` and lists
// the first skipped lines.
json report(std::string_view text, std::string_view source, std::string_view collective = {},
            std::optional<int> ranks = std::nullopt, const Cluster& cluster = {});

}  // namespace sb::gpus::nccl
