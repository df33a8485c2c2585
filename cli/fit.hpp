// The `scaling fit-collective` command: an nccl-tests log read from a file and fitted by gpus.fit.
// Part of main.cpp, included there alone (see args.hpp).
#pragma once
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "core/api.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace {

const char* kFitUsage =
    "usage: scaling fit-collective FILE [--collective C] [--ranks N] [--gpu G] [--nodes M] "
    "[--json]\n"
    "reads the output of an nccl-tests binary (all_reduce_perf, all_gather_perf, ...) and fits\n"
    "time = latency + size / bandwidth to its out-of-place rows; the options say what the log\n"
    "does not (the log wins where it says it)\n";
constexpr size_t kMaxLogBytes = sb::kLongTextBytes;  // the longest log gpus.fit takes

struct FitArgs {
  std::string file, collective, gpu;
  std::optional<int> ranks, nodes;
  bool as_json = false, help = false;
};

// A whole number option (--ranks, --nodes): InputError naming it otherwise.
int whole_option(const std::string& name, const std::string& v) {
  double x = sb::units::parse(v, "count", name);
  if (x < 1 || x > 1e7 || x != static_cast<int>(x))
    sb::fail(name, name + ": a whole number from 1 up", "out_of_range");
  return static_cast<int>(x);
}

bool fit_args(const std::vector<std::string>& args, FitArgs& a) {
  for (size_t i = 2; i < args.size(); ++i) {
    const std::string& x = args[i];
    if (x == "--json")
      a.as_json = true;
    else if (x == "--help" || x == "-h")
      a.help = true;
    else if (i + 1 < args.size() && x == "--collective")
      a.collective = args[++i];
    else if (i + 1 < args.size() && x == "--gpu")
      a.gpu = args[++i];
    else if (i + 1 < args.size() && x == "--ranks")
      a.ranks = whole_option("ranks", args[++i]);
    else if (i + 1 < args.size() && x == "--nodes")
      a.nodes = whole_option("nodes", args[++i]);
    else if (x.rfind("--", 0) != 0 && a.file.empty())
      a.file = x;
    else {
      err() << "error: unexpected argument '" << x << "'\n" << kFitUsage;
      return false;
    }
  }
  if (a.file.empty() && !a.help) {
    err() << "error: give the log's FILE\n" << kFitUsage;
    return false;
  }
  return true;
}

std::string read_log(const std::string& file) {
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (!f) sb::fail("file", file + ": cannot be read", "no_file");
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    text.append(buf, n);
    if (text.size() > kMaxLogBytes) {
      std::fclose(f);
      sb::fail("file", file + ": longer than 16 MiB; cut it to the tables", "too_large");
    }
  }
  std::fclose(f);
  return text;
}

void print_fit_text(const json& r) {
  auto str = [](const json& v) { return v.is_null() ? std::string("unknown") : v.dump(); };
  std::cout << r["source"].get<std::string>() << ": collective " << str(r["collective"])
            << ", ranks " << str(r["ranks"]) << ", GPUs " << r["gpus"].dump() << "\n";
  std::cout << r["rows"].size() << " complete rows (size, out-of-place time, algbw, busbw)\n";
  for (const json& row : r["rows"])
    std::cout << "  " << sb::units::format(row["size_B"].get<double>(), "B") << "  "
              << str(row["time_us"]) << " us  " << str(row["algbw_GBps"]) << " GB/s  "
              << str(row["busbw_GBps"]) << " GB/s\n";
  std::cout << "largest-size busbw: " << str(r["largest_busbw_GBps"]) << " GB/s\n";
  const json& f = r["fit"];
  if (f.is_object()) {
    std::cout << "fit: latency " << sb::units::format(f["latency_s"].get<double>(), "s")
              << ", bandwidth " << sb::units::format(f["bandwidth_Bps"].get<double>(), "B_per_s")
              << " (" << f["convention"].get<std::string>() << ")";
    if (f["line_rate_fraction"].is_number())
      std::cout << ", " << sb::units::number(100 * f["line_rate_fraction"].get<double>(), 3)
                << "% of the line rate (" << f["line_rate"].get<std::string>() << ")";
    else
      std::cout << "; no line-rate share: " << f["reason"].get<std::string>();
    std::cout << "\n";
  }
  for (const json& w : r["warnings"]) std::cout << "warning: " << w.get<std::string>() << "\n";
  for (const json& s : r["skipped"])
    std::cout << "skipped line " << s["line"] << ": " << s["reason"].get<std::string>() << "\n";
}

// Through the JSON entry point (gpus.fit), which reads the log whatever its length when the
// request is built here rather than parsed from text.
int cmd_fit(const std::vector<std::string>& args) {
  FitArgs a;
  if (!fit_args(args, a)) return 2;
  if (a.help) {
    std::cout << kFitUsage;
    return 0;
  }
  std::string text;
  try {
    text = read_log(a.file);
  } catch (const sb::InputError& e) {
    return print_error(
        json{{"ok", false},
             {"error", {{"code", e.code}, {"message", e.what()}, {"field", e.field}}}},
        a.as_json);
  }
  json inputs{{"log", text}, {"source", a.file}};
  if (!a.collective.empty()) inputs["collective"] = a.collective;
  if (!a.gpu.empty()) inputs["gpu"] = a.gpu;
  if (a.ranks) inputs["ranks"] = *a.ranks;
  if (a.nodes) inputs["nodes"] = *a.nodes;
  json r = sb::api::handle(json{{"op", "calc"}, {"name", "gpus.fit"}, {"inputs", inputs}});
  if (!r["ok"].get<bool>()) return print_error(r, a.as_json);
  json rep = r["report"];
  rep["ok"] = true;
  if (a.as_json)
    std::cout << rep.dump(2) << "\n";
  else
    print_fit_text(rep);
  return 0;
}

}  // namespace
