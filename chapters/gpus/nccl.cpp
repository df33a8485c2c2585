// Reading nccl-tests logs (nccl.hpp). The log is read line by line; each line is a header line
// (comments starting with '#'), a row of the table, a command line, or something else, which is
// skipped with its reason. Nothing here throws on a log's text.
#include "chapters/gpus/nccl.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "core/json.hpp"

namespace sb::gpus::nccl {
namespace {

constexpr size_t kMaxSkippedListed = 500;  // a log of NCCL INFO lines would list them all
constexpr int64_t kMaxRanks = 1000000;  // past any cluster; the busbw/algbw reading stops here too

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> tokens(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\r') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// A number that is the whole token and finite ("1.5", "0e+00", "-1"); nullopt otherwise.
std::optional<double> number(std::string_view t) {
  if (t.empty() || t.size() > 40) return std::nullopt;
  std::string s(t);
  char* end = nullptr;
  double v = read_decimal(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  // Read as strtod reads: "inf", "nan" and hex floats too, which a table never prints.
  for (char c : s)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' ||
          c == 'e' || c == 'E'))
      return std::nullopt;
  return v;
}

// The line with mpirun's or a launcher's output tags taken off: "[1,0]<stdout>:", "[0]", "[0] ".
std::string_view untag(std::string_view s) {
  for (int rounds = 0; rounds < 4; ++rounds) {
    s = trim(s);
    if (s.empty() || s.front() != '[') return s;
    size_t close = s.find(']');
    if (close == std::string_view::npos || close > 24) return s;
    for (char c : s.substr(1, close - 1))
      if (!(std::isdigit(static_cast<unsigned char>(c)) || c == ',')) return s;
    s.remove_prefix(close + 1);
    for (std::string_view tag : {"<stdout>", "<stderr>"})
      if (s.substr(0, tag.size()) == tag) s.remove_prefix(tag.size());
    if (!s.empty() && s.front() == ':') s.remove_prefix(1);
  }
  return s;
}

// Text from the log as printable ASCII (a JSON writer refuses invalid UTF-8).
std::string printable(std::string_view s) {
  std::string t(s.substr(0, 200));
  for (char& c : t)
    if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
  return t;
}

std::string quote(std::string_view s) {
  std::string t(s.substr(0, 60));
  for (char& c : t)
    if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126) c = '?';
  return "\"" + t + (s.size() > 60 ? "...\"" : "\"");
}

const char* const kTests[] = {"all_reduce", "all_gather", "reduce_scatter", "alltoall",
                              "sendrecv",   "broadcast",  "reduce",         "gather",
                              "scatter",    "hypercube"};

// The tests a line names by their binaries ("./build/all_reduce_perf", "all_gather_perf_mpi").
void tests_named(std::string_view s, std::set<std::string>& out) {
  for (size_t at = s.find("_perf"); at != std::string_view::npos; at = s.find("_perf", at + 1)) {
    size_t b = at;
    while (b > 0 && (std::islower(static_cast<unsigned char>(s[b - 1])) || s[b - 1] == '_')) --b;
    std::string stem(s.substr(b, at - b));
    for (const char* t : kTests)
      if (stem == t) out.insert(stem);
  }
}

// The table's layout: how many columns come before the first half, and how many halves.
struct Layout {
  int prefix = 0;  // size, count, type[, redop[, root]]
  int halves = 0;  // 2: out-of-place and in-place
  bool from_header = false;
};

struct State {
  Log log;
  Layout layout;
  std::set<std::string> tests;
  std::set<int> ranks;
  std::optional<int> np, n_gpus, n_threads;
  size_t skipped_total = 0;
  void skip(int line, std::string reason) {
    ++skipped_total;
    if (log.skipped.size() < kMaxSkippedListed) log.skipped.push_back({line, std::move(reason)});
  }
};

// "#  Rank  0 Group  0 Pid 1234 on node01 device  0 [0x18] NVIDIA H100 80GB HBM3"
void read_rank(const std::vector<std::string_view>& t, State& st) {
  std::optional<double> rank;
  std::string host, device;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i] == "Rank" && !rank) rank = number(t[i + 1]);
    if (t[i] == "on" && host.empty()) host = printable(t[i + 1]);
    if (t[i] == "device" && i + 2 < t.size()) {
      size_t k = i + 2;
      if (!t[k].empty() && t[k].front() == '[') ++k;  // the bus id
      for (; k < t.size(); ++k) device += (device.empty() ? "" : " ") + printable(t[k]);
      break;
    }
  }
  if (rank && *rank >= 0 && *rank < 1e7) st.ranks.insert(static_cast<int>(*rank));
  if (!host.empty() &&
      std::find(st.log.hosts.begin(), st.log.hosts.end(), host) == st.log.hosts.end())
    st.log.hosts.push_back(host);
  if (!device.empty() &&
      std::find(st.log.gpus.begin(), st.log.gpus.end(), device) == st.log.gpus.end())
    st.log.gpus.push_back(device);
}

// "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time ..." (or "error").
bool read_columns(const std::vector<std::string_view>& t, State& st) {
  int first_time = -1, times = 0;
  bool has_size = false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == "size") has_size = true;
    if (t[i] == "time") {
      if (first_time < 0) first_time = static_cast<int>(i);
      ++times;
    }
  }
  if (!has_size || first_time < 1 || times < 1 || times > 2) return false;
  int size_at = 0;
  while (t[size_at] != "size") ++size_at;
  if (size_at >= first_time) return false;  // a row starts at its size: no time comes before it
  st.layout = {first_time - size_at, times, true};
  return true;
}

void read_comment(std::string_view body, int line, State& st) {
  std::vector<std::string_view> t = tokens(body);
  if (t.empty()) return;
  if (t[0] == "Rank") return read_rank(t, st);
  if (t[0] == "nThread") {
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      auto v = number(t[i + 1]);
      if (!v || *v < 1 || *v > 1e6) continue;
      if (t[i] == "nThread") st.n_threads = static_cast<int>(*v);
      if (t[i] == "nGpus") st.n_gpus = static_cast<int>(*v);
    }
    return;
  }
  if (read_columns(t, st)) return;
  if (body.find("Avg bus bandwidth") != std::string_view::npos) {
    size_t colon = body.find(':');
    auto v = colon == std::string_view::npos ? std::nullopt : number(trim(body.substr(colon + 1)));
    if (v)
      st.log.avg_busbw_GBps = *v;
    else
      st.skip(line, "the footer's average has no number: " + quote(body));
  }
}

// A command line: mpirun's -np (or -n) and the binary's name.
bool read_command(std::string_view s, State& st) {
  std::vector<std::string_view> t = tokens(s);
  bool launcher = false, binary = false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].find("mpirun") != std::string_view::npos || t[i] == "srun" ||
        t[i].find("mpiexec") != std::string_view::npos)
      launcher = true;
    if (t[i].find("_perf") != std::string_view::npos) binary = true;
    if ((t[i] == "-np" || t[i] == "-n" || t[i] == "--ntasks") && i + 1 < t.size()) {
      auto v = number(t[i + 1]);
      if (v && *v >= 1 && *v < 1e7 && std::floor(*v) == *v) st.np = static_cast<int>(*v);
    }
  }
  return launcher || binary;
}

// The layout a row's width implies when no header line gave one: 13 columns (size count type
// redop root + two halves of time algbw busbw #wrong), 12 (no root), 11 (no redop either).
std::optional<Layout> layout_from_width(size_t n) {
  if (n == 13) return Layout{5, 2, false};
  if (n == 12) return Layout{4, 2, false};
  if (n == 11) return Layout{3, 2, false};
  return std::nullopt;
}

// One half: time algbw busbw #wrong (or error); N/A leaves a value absent. Returns the reason it
// cannot be read, "" when it can.
std::string read_half(const std::vector<std::string_view>& t, size_t at, Half& h) {
  std::optional<double>* vals[] = {&h.time_us, &h.algbw_GBps, &h.busbw_GBps};
  const char* names[] = {"time", "algbw", "busbw"};
  for (int k = 0; k < 3; ++k) {
    if (t[at + k] == "N/A") continue;
    auto v = number(t[at + k]);
    if (!v) return std::string(names[k]) + " is not a number: " + quote(t[at + k]);
    if (*v < 0) return std::string(names[k]) + " is negative: " + quote(t[at + k]);
    *vals[k] = *v;
  }
  if (t[at + 3] != "N/A") {
    auto w = number(t[at + 3]);
    if (!w) return "#wrong is not a number: " + quote(t[at + 3]);
    h.wrong = std::fabs(*w);
  }
  return "";
}

void read_row(const std::vector<std::string_view>& t, int line, State& st) {
  Layout lay = st.layout;
  if (!lay.from_header) {
    auto guess = layout_from_width(t.size());
    if (!guess) {
      st.skip(line, "a row of " + std::to_string(t.size()) +
                        " columns and no column header to read it by (row cut off?)");
      return;
    }
    lay = *guess;
  }
  const size_t want = static_cast<size_t>(lay.prefix + 4 * lay.halves);
  if (t.size() < want) {
    st.skip(line, "row cut off: " + std::to_string(t.size()) + " of " + std::to_string(want) +
                      " columns");
    return;
  }
  if (t.size() > want) {
    st.skip(line, "more columns (" + std::to_string(t.size()) + ") than the header's " +
                      std::to_string(want));
    return;
  }
  auto size = number(t[0]);
  if (!size || *size < 0 || std::floor(*size) != *size) {
    st.skip(line, "size is not a whole number of bytes: " + quote(t[0]));
    return;
  }
  Row r;
  r.line = line;
  r.size_B = *size;
  std::string why = read_half(t, lay.prefix, r.out);
  if (why.empty() && lay.halves == 2) why = read_half(t, lay.prefix + 4, r.in);
  if (why.empty() && !r.out.time_us) why = "no out-of-place time (N/A)";
  if (why.empty() && !(*r.out.time_us > 0)) why = "the out-of-place time is zero";
  if (!why.empty()) return st.skip(line, why);
  st.log.rows.push_back(r);
}

void read_line(std::string_view raw, int line, State& st) {
  std::string_view s = untag(raw);
  if (s.find("NVLS") != std::string_view::npos || s.find("SHARP") != std::string_view::npos ||
      s.find("CollNet") != std::string_view::npos || s.find("COLLNET") != std::string_view::npos)
    st.log.in_network = true;
  tests_named(s, st.tests);
  if (s.empty()) return;
  if (s.front() == '#') return read_comment(s.substr(1), line, st);
  std::vector<std::string_view> t = tokens(s);
  if (number(t[0])) return read_row(t, line, st);
  if (read_command(s, st)) return;
  st.skip(line, "not a row of the table: " + quote(s));
}

void settle_collective(State& st, std::string_view option) {
  if (st.tests.size() == 1) st.log.collective = *st.tests.begin();
  if (st.tests.size() > 1) {
    std::string names;
    for (const auto& n : st.tests) names += (names.empty() ? "" : ", ") + n;
    st.log.warnings.push_back("the log names several tests (" + names +
                              "): the collective is unknown");
  }
  if (option.empty()) return;
  std::string opt;
  for (char c : option.substr(0, 40))
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
      opt += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (opt.empty()) return;
  if (opt.size() > 5 && opt.substr(opt.size() - 5) == "_perf") opt.resize(opt.size() - 5);
  if (!st.log.collective && st.tests.size() <= 1)
    st.log.collective = opt;
  else if (st.log.collective && *st.log.collective != opt)
    st.log.warnings.push_back("the log is " + *st.log.collective + "_perf; --collective " + opt +
                              " is not used");
}

// Ranks from NCCL's factor, where the collective's factor depends on n and the digits tell it.
std::optional<int> ranks_from_factor(const Log& log) {
  if (!log.collective) return std::nullopt;
  const std::string& c = *log.collective;
  const bool ar = c == "all_reduce";
  if (!ar && c != "all_gather" && c != "reduce_scatter" && c != "alltoall") return std::nullopt;
  double best = 0, f = 0;
  for (const Row& r : log.rows)
    if (r.out.algbw_GBps && r.out.busbw_GBps && *r.out.algbw_GBps > best)
      best = *r.out.algbw_GBps, f = *r.out.busbw_GBps / best;
  if (best < 1) return std::nullopt;
  double g = ar ? f / 2 : f;  // (n - 1) / n
  if (!(g > 0 && g < 1)) return std::nullopt;
  double n = 1 / (1 - g);
  double spread = n * n * (ar ? 0.5 : 1) * 0.005 * (1 + f) / best;  // from 2-digit rounding
  if (n > kMaxRanks || spread > 0.3 || std::fabs(n - std::round(n)) > 0.3) return std::nullopt;
  return static_cast<int>(std::round(n));
}

// -np x nGpus x nThread, in 64 bits: each is below 1e7, so the product can pass an int's range.
std::optional<int> ranks_from_launch(State& st) {
  if (!st.np) return std::nullopt;
  const int64_t n = int64_t{*st.np} * st.n_gpus.value_or(1) * st.n_threads.value_or(1);
  if (n <= kMaxRanks) return static_cast<int>(n);
  st.log.warnings.push_back("-np x nGpus x nThread is " + std::to_string(n) + ", over " +
                            std::to_string(kMaxRanks) + " ranks: it is not used");
  return std::nullopt;
}

void settle_ranks(State& st, std::optional<int> option) {
  Log& log = st.log;
  const std::optional<int> launched = ranks_from_launch(st);
  if (!st.ranks.empty()) {
    log.ranks = static_cast<int>(st.ranks.size());
    log.ranks_from = "Rank lines";
    if (launched && *launched != *log.ranks)
      log.warnings.push_back("the Rank lines list " + std::to_string(*log.ranks) +
                             " ranks, -np says otherwise: the Rank lines are used");
  } else if (launched) {
    log.ranks = launched;
    log.ranks_from = "-np";
  } else if (auto n = ranks_from_factor(log)) {
    log.ranks = n;
    log.ranks_from = "busbw/algbw";
  }
  if (option && !log.ranks) {
    log.ranks = option;
    log.ranks_from = "--ranks";
  } else if (option && *option != *log.ranks) {
    log.warnings.push_back("the log has " + std::to_string(*log.ranks) + " ranks (from its " +
                           log.ranks_from + "); --ranks " + std::to_string(*option) +
                           " is not used");
  }
}

void check_rows(State& st) {
  Log& log = st.log;
  int wrong = 0, first_wrong = 0;
  for (const Row& r : log.rows)
    if (r.out.wrong > 0 || r.in.wrong > 0) {
      if (!wrong) first_wrong = r.line;
      ++wrong;
    }
  if (wrong)
    log.warnings.push_back(std::to_string(wrong) +
                           " row(s) with a non-zero #wrong or error (from line " +
                           std::to_string(first_wrong) + ") are left out of the fit");
  for (size_t i = 1; i < log.rows.size(); ++i)
    if (!(log.rows[i].size_B > log.rows[i - 1].size_B)) {
      log.warnings.push_back("sizes repeat or run out of order at line " +
                             std::to_string(log.rows[i].line) +
                             " (runs written over each other?): no fit");
      break;
    }
  if (st.skipped_total > log.skipped.size())
    log.warnings.push_back(std::to_string(st.skipped_total - log.skipped.size()) +
                           " more skipped lines are not listed");
  if (log.in_network)
    log.warnings.push_back(
        "the log mentions NVLS, SHARP or CollNet: the switches reduce, so the chapter's time is "
        "bytes / W with no 2(N-1)/N, while NCCL still reports busbw = algbw * 2(N-1)/N; its busbw "
        "may then exceed the link's line rate");
}

}  // namespace

Log parse(std::string_view text, std::string_view collective, std::optional<int> ranks) {
  State st;
  int line = 0;
  size_t at = 0;
  while (at <= text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    ++line;
    read_line(text.substr(at, nl - at), line, st);
    at = nl + 1;
  }
  settle_collective(st, collective);
  settle_ranks(st, ranks);
  check_rows(st);
  return std::move(st.log);
}

std::optional<double> bus_factor(const std::optional<std::string>& c, const std::optional<int>& n) {
  if (!c) return std::nullopt;
  if (*c == "sendrecv" || *c == "broadcast" || *c == "reduce" || *c == "hypercube") return 1.0;
  if (!n || *n < 1) return std::nullopt;
  const double m = *n;
  if (*c == "all_reduce") return 2 * (m - 1) / m;
  if (*c == "all_gather" || *c == "reduce_scatter" || *c == "alltoall" || *c == "gather" ||
      *c == "scatter")
    return (m - 1) / m;
  return std::nullopt;
}

}  // namespace sb::gpus::nccl
