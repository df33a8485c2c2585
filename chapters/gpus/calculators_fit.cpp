// The nccl-tests paste box: a log read and fitted (nccl.hpp), the chapter's formula for that
// cluster beside it, and the points of the log-log plot: measured, the chapter's, the fit's.
#include <cmath>
#include <string>

#include "chapters/gpus/calculators.hpp"
#include "chapters/gpus/formulas.hpp"
#include "chapters/gpus/nccl.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::gpus {
namespace {

// The chapter's time for the log's collective over its ranks at a line rate, at size s.
double chapter_time(const std::string& op, double ranks, double w, double s) {
  if (op == "all_reduce") return ar_time(s, ranks, w);
  if (op == "alltoall") return a2a_time(s * ranks, ranks, w);  // s: one rank's buffer
  if (op == "sendrecv") return ag_time_approx(s, w);
  return ag_time(s, ranks, w);  // all_gather, reduce_scatter: s is the whole array
}

void chapter_step(Trace& tr, const std::string& op, double ranks, double w, double s) {
  if (op == "all_reduce")
    tr.step("The chapter's time at the largest size", kArRing, {s, ranks, w});
  else if (op == "alltoall")
    tr.step("The chapter's time at the largest size", kA2A, {s * ranks, ranks, w});
  else if (op == "sendrecv")
    tr.step("The chapter's time at the largest size", kAgApprox, {s, w});
  else
    tr.step("The chapter's time at the largest size", kAgRing, {s, ranks, w});
}

void plot(const json& rep, Trace& tr, Result& r) {
  const json& fit = rep["fit"];
  json pts = json::array(), fitted = json::array(), model = json::array();
  const bool line = fit.is_object() && fit["line_rate_Bps"].is_number() &&
                    rep["ranks"].is_number() && rep["collective"].is_string();
  const std::string op = rep["collective"].is_string() ? rep["collective"].get<std::string>() : "";
  const double ranks = rep["ranks"].is_number() ? rep["ranks"].get<double>() : 0;
  double largest = 0;
  for (const json& row : rep["rows"]) {
    const double s = row["size_B"].get<double>();
    if (s <= 0 || !row["time_us"].is_number()) continue;
    largest = s;
    pts.push_back({s, row["time_us"].get<double>() * 1e-6});
    if (fit.is_object())
      fitted.push_back({s, fit["latency_s"].get<double>() + s / fit["algbw_Bps"].get<double>()});
    if (line) model.push_back({s, chapter_time(op, ranks, fit["line_rate_Bps"].get<double>(), s)});
  }
  if (line && largest > 0) chapter_step(tr, op, ranks, fit["line_rate_Bps"].get<double>(), largest);
  r.extra["plot"] =
      json{{"measured", std::move(pts)}, {"fit", std::move(fitted)}, {"chapter", std::move(model)}};
}

}  // namespace

void fit_calc(const Inputs& in, Trace& tr, Result& r) {
  const double ranks = in.num("ranks"), nodes = in.num("nodes");
  nccl::Cluster cl{in.text("gpu"),
                   nodes > 0 ? std::optional<int>(static_cast<int>(nodes)) : std::nullopt};
  const std::string source = in.text("source").empty() ? "the pasted log" : in.text("source");
  const std::string op = in.text("collective") == "auto" ? "" : in.text("collective");
  json rep =
      nccl::report(in.text("log"), source, op,
                   ranks > 0 ? std::optional<int>(static_cast<int>(ranks)) : std::nullopt, cl);
  if (rep["rows"].empty()) {
    // The first lines skipped say why.
    std::string why = source + ": no complete row of an nccl-tests table";
    for (size_t i = 0; i < rep["skipped"].size() && i < 10; ++i)
      why += "; line " + std::to_string(rep["skipped"][i]["line"].get<int>()) + ": " +
             rep["skipped"][i]["reason"].get<std::string>();
    if (rep["skipped"].size() > 10)
      why += "; and " + std::to_string(rep["skipped"].size() - 10) + " more lines skipped";
    fail("log", why, "no_rows");
  }
  tr.value("Complete rows read", static_cast<double>(rep["rows"].size()), "count");
  const json& fit = rep["fit"];
  if (fit.is_object()) {
    tr.value("Fitted latency", fit["latency_s"].get<double>(), "s");
    tr.value("Fitted bandwidth", fit["bandwidth_Bps"].get<double>(), "B_per_s");
    r.value("latency", fit["latency_s"].get<double>(), "s", "latency");
    r.value(
        "bandwidth", fit["bandwidth_Bps"].get<double>(), "B_per_s",
        fit["convention"] == "bus" ? "bus bandwidth (NCCL's convention)" : "algorithm bandwidth");
    if (fit["line_rate_fraction"].is_number()) {
      double q = tr.step("Share of the line rate", kRatio,
                         {fit["bandwidth_Bps"].get<double>(), fit["line_rate_Bps"].get<double>()});
      r.value("line_rate_fraction", q, "ratio", "share of the line rate");
    } else {
      r.note("No line-rate share: " + fit["reason"].get<std::string>() + ".");
    }
  }
  if (rep["largest_busbw_GBps"].is_number())
    r.value("largest_busbw", rep["largest_busbw_GBps"].get<double>() * 1e9, "B_per_s",
            "bus bandwidth at the largest size");
  for (const json& w : rep["warnings"]) r.note(w.get<std::string>());
  plot(rep, tr, r);
  r.extra["report"] = std::move(rep);
}

}  // namespace sb::gpus
