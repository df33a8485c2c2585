// The `scaling` command: the same registry and JSON entry point as the web page, in a terminal.
#include <algorithm>
#include <iostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/args.hpp"
#include "cli/fit.hpp"
#include "core/api.hpp"
#include "core/error.hpp"
#include "core/plain_tex.hpp"
#include "core/registry.hpp"
#include "core/units.hpp"

using sb::json;

namespace {

const char* kUsage = R"(scaling: the calculators and exercises of "How To Scale Your Model"

usage:
  scaling list [--json]                      chapters, calculators and problems
  scaling calc NAME [--PARAM VALUE ...] [--json]
                                             run a calculator (scaling calc NAME --help)
  scaling problem ID [--given NAME=VALUE ...] [--json]
                                             a problem: statement, answers, derivation
  scaling check ID SLOT=ANSWER ... [--given NAME=VALUE ...] [--json]
                                             grade answers; exit 0 correct, 1 wrong, 2 bad input
  scaling problems [--json]                  every problem's computed answers
  scaling chips [--json]                     the hardware tables with sources
  scaling fit-collective FILE [--collective C] [--ranks N] [--gpu G] [--nodes M] [--json]
                                             read an nccl-tests log, fit latency and bandwidth
)";
const char* kUsageEnd = R"(Values take units: --bw "45 GB/s", b_crit=120, t_math="1.2 ms".
A long-text input (a pasted log) is read from a file: --PARAM FILE, - for standard input.
)";

void print_trace(const json& trace) {
  if (trace.empty()) return;
  std::cout << "\nderivation:\n";
  for (const auto& s : trace) {
    std::cout << "  " << sb::plain_sentence(s["what"].get<std::string>());
    if (s.contains("formula")) {
      std::cout << ": " << sb::plain_tex(s["formula"].get<std::string>());
      if (s.contains("numbers"))
        std::cout << " = " << sb::plain_tex(s["numbers"].get<std::string>());
      if (s.contains("text")) std::cout << " = " << s["text"].get<std::string>();
    } else if (s.contains("text")) {  // a value no formula gives (a count, a search)
      std::cout << ": " << s["text"].get<std::string>();
    }
    std::cout << "\n";
  }
}

void print_help_params(const std::string& title, std::string_view doc,
                       std::span<const sb::Param> ps) {
  std::cout << title << "\n";
  if (!doc.empty()) std::cout << doc << "\n";
  std::cout << "\nparameters:\n";
  for (const auto& p : ps) {
    json j = sb::to_json(p);
    std::string def = p.kind == sb::Param::Kind::Number ? j["default_text"].get<std::string>()
                                                        : std::string(p.def_text);
    if (p.long_text) {
      std::cout << "  --" << p.name << " FILE  " << p.doc << " (read from FILE, - for standard "
                << "input; at most 16 MiB)\n";
      continue;
    }
    std::cout << "  --" << p.name << "  " << p.doc << " (default " << def;
    if (p.kind == sb::Param::Kind::Choice && !p.chip) {
      std::cout << "; one of";
      for (const auto& c : sb::choices_of(p)) std::cout << " " << c;
    }
    if (p.chip) std::cout << "; any chip id, see scaling chips";
    std::cout << ")\n";
  }
  std::cout << "  --json  machine-readable output\n";
}

int cmd_list(bool as_json) {
  json r = sb::api::handle(json{{"op", "list"}});
  if (as_json) {
    std::cout << r.dump(2) << "\n";
    return 0;
  }
  std::cout << "chapters:\n";
  for (const auto& c : r["chapters"])
    std::cout << "  " << c["part"].get<int>() << "  " << c["id"].get<std::string>() << "  "
              << c["title"].get<std::string>() << "\n";
  std::cout << "calculators:\n";
  for (const auto& c : r["calculators"])
    std::cout << "  " << c["name"].get<std::string>() << "  " << c["title"].get<std::string>()
              << "\n";
  std::cout << "problems:\n";
  for (const auto& p : r["problems"])
    std::cout << "  " << p["id"].get<std::string>() << "  " << p["title"].get<std::string>()
              << "\n";
  return 0;
}

// A `table` member (texts, the header first) in columns: the first left to right, the numbers
// lined up on the right.
void print_table(const json& table) {
  std::vector<size_t> width;
  for (const auto& row : table)
    for (size_t i = 0; i < row.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], row[i].get<std::string>().size());
    }
  for (const auto& row : table) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      std::string cell = row[i].get<std::string>();
      const std::string pad(width[i] - cell.size(), ' ');
      line += i == 0 ? cell + pad : "  " + pad + cell;
    }
    std::cout << line << "\n";
  }
}

// `preset`: inputs given before the flags (several files joined into a long-text input).
int cmd_calc(const std::vector<std::string>& args, const json& preset = json::object()) {
  if (args.size() < 3 || args[2] == "--help" || args[2] == "-h") {
    std::ostream& o = args.size() < 3 ? err() : std::cout;
    if (args.size() < 3) o << "error in name: calc needs a calculator NAME\n";
    o << "usage: scaling calc NAME [--PARAM VALUE ...] [--json]\n\ncalculators:\n";
    for (const auto& c : sb::Registry::get().calculators())
      o << "  " << c.name << "  " << c.title << "\n";
    return args.size() < 3 ? 2 : 0;
  }
  const sb::Calculator* c = nullptr;
  try {
    c = &sb::Registry::get().calculator(args[2]);
  } catch (const sb::InputError& e) {
    err() << "error in " << e.field << ": " << e.what() << "\n";
    return 2;
  }
  json inputs = preset;
  bool as_json = false, help = false;
  if (!flags(args, 3, c->params, inputs, as_json, help)) return 2;
  if (help) {
    print_help_params("scaling calc " + std::string(c->name) + ": " + std::string(c->title), c->doc,
                      c->params);
    return 0;
  }
  json r = sb::api::handle(json{{"op", "calc"}, {"name", args[2]}, {"inputs", inputs}});
  if (!r["ok"].get<bool>()) return print_error(r, as_json);
  if (as_json) {
    std::cout << r.dump(2) << "\n";
    return 0;
  }
  std::cout << args[2] << "\n";
  if (r.contains("values"))
    for (auto it = r["values"].begin(); it != r["values"].end(); ++it) {
      const auto& v = it.value();
      if (v.is_object() && v.contains("text"))
        std::cout << "  " << (v.contains("label") ? v["label"].get<std::string>() : it.key())
                  << ": " << v["text"].get<std::string>() << "\n";
    }
  if (r.contains("verdict") && r["verdict"].is_string())
    std::cout << "verdict: " << r["verdict"].get<std::string>() << "\n";
  if (r.contains("notes"))
    for (const auto& n : r["notes"])
      if (n.is_string()) std::cout << "note: " << n.get<std::string>() << "\n";
  if (r.contains("table") && r["table"].is_array() && !r.contains(std::string(c->command)))
    print_table(r["table"]);
  print_trace(r["trace"]);
  return 0;
}

int cmd_problem(const std::vector<std::string>& args) {
  if (args.size() < 3 || args[2] == "--help" || args[2] == "-h") {
    if (args.size() < 3) err() << "error in id: problem needs a problem ID (scaling list)\n";
    (args.size() < 3 ? err() : std::cout)
        << "usage: scaling problem ID [--given NAME=VALUE ...] [--json]\n";
    return args.size() < 3 ? 2 : 0;
  }
  const sb::Problem* p = find_problem(args);
  ProblemArgs pa;
  if (!p || !problem_args(args, *p, false, pa)) return 2;
  json r = sb::api::handle(json{{"op", "problem"}, {"id", args[2]}, {"given", pa.given}});
  if (!r["ok"].get<bool>()) return print_error(r, pa.as_json);
  if (pa.as_json) {
    std::cout << r.dump(2) << "\n";
    return 0;
  }
  std::cout << r["id"].get<std::string>() << ": " << r["title"].get<std::string>() << "\n\n"
            << r["statement"].get<std::string>() << "\n\nanswers:\n";
  for (const auto& s : r["slots"]) {
    const auto& a = r["answers"][s["name"].get<std::string>()];
    std::cout << "  " << s["name"].get<std::string>() << " = "
              << (a.contains("text") ? a["text"].get<std::string>()
                                     : sb::plain_tex(a.value("tex", "")))
              << "\n";
  }
  if (r.contains("model_answer"))
    std::cout << "\nmodel answer: " << r["model_answer"].get<std::string>() << "\n";
  if (r.contains("erratum")) std::cout << "\nerratum: " << r["erratum"].get<std::string>() << "\n";
  print_trace(r["trace"]);
  return 0;
}

int cmd_check(const std::vector<std::string>& args) {
  if (args.size() < 3 || args[2] == "--help" || args[2] == "-h") {
    if (args.size() < 3) err() << "error in id: check needs a problem ID (scaling list)\n";
    (args.size() < 3 ? err() : std::cout)
        << "usage: scaling check ID SLOT=ANSWER ... [--given NAME=VALUE ...] [--json]\n"
           "exit status: 0 all correct, 1 some wrong, 2 bad input\n";
    return args.size() < 3 ? 2 : 0;
  }
  const sb::Problem* p = find_problem(args);
  ProblemArgs pa;
  if (!p || !problem_args(args, *p, true, pa)) return 2;
  if (pa.answers.empty()) {
    if (p->slots.empty()) {
      err() << "error: " << p->id << " has no answers to check; scaling problem " << p->id
            << " shows its model answer\n";
      return 2;
    }
    err() << "error in answers: no answers given; write SLOT=ANSWER, as in " << p->slots[0].name
          << "=" << sb::units::example(p->slots[0].unit) << " (slots:";
    for (const auto& sl : p->slots) err() << " " << sl.name;
    err() << ")\n";
    return 2;
  }
  const bool as_json = pa.as_json;
  const json& answers = pa.answers;
  const json& given = pa.given;
  json r = sb::api::handle(
      json{{"op", "check"}, {"id", args[2]}, {"answers", answers}, {"given", given}});
  if (!r["ok"].get<bool>()) return print_error(r, as_json);
  const auto& results = r["results"];
  if (std::all_of(results.begin(), results.end(),
                  [](const json& x) { return x["verdict"] == "empty"; })) {
    err() << "error in answers: every answer given is empty, so nothing was graded; write "
             "SLOT=ANSWER, as in "
          << p->slots[0].name << "=" << sb::units::example(p->slots[0].unit) << "\n";
    return 2;
  }
  int code = 0;
  for (const auto& x : results) {
    std::string v = x["verdict"].get<std::string>();
    if (v == "invalid")
      code = 2;
    else if (v != "correct" && v != "empty" && code == 0)
      code = 1;
  }
  if (as_json) {
    std::cout << r.dump(2) << "\n";
    return code;
  }
  for (const auto& x : r["results"]) {
    std::string v = x["verdict"].get<std::string>();
    if (v == "empty") continue;
    std::cout << x["slot"].get<std::string>() << ": " << v;
    if (v == "invalid")
      std::cout << " (" << x["error"]["message"].get<std::string>() << ")";
    else if (v != "correct" && x.contains("expected_text"))
      std::cout << "; expected " << sb::plain_tex(x["expected_text"].get<std::string>());
    std::cout << "\n";
    if (x.contains("note") && !x["note"].get<std::string>().empty())
      std::cout << "  note: " << x["note"].get<std::string>() << "\n";
    if (x.contains("hint") && !x["hint"].get<std::string>().empty())
      std::cout << "  hint: " << x["hint"].get<std::string>() << "\n";
  }
  return code;
}

int cmd_problems(bool as_json) {
  json out = json::array();
  for (const auto& p : sb::Registry::get().problems()) {
    json r = sb::api::handle(json{{"op", "problem"}, {"id", p.id}});
    json answers = json::array();
    if (r["ok"].get<bool>())
      for (const auto& s : r["slots"]) {
        if (s["kind"] == "formula") continue;
        const auto& a = r["answers"][s["name"].get<std::string>()];
        answers.push_back({{"slot", s["name"]}, {"unit", s["unit"]}, {"value", a["value"]}});
      }
    else
      std::cerr << "error in " << p.id << ": " << r["error"]["message"].get<std::string>() << "\n";
    out.push_back({{"id", p.id}, {"answers", answers}});
  }
  if (as_json) {
    std::cout << out.dump(1) << "\n";
    return 0;
  }
  for (const auto& p : out) {
    std::cout << p["id"].get<std::string>() << "\n";
    for (const auto& a : p["answers"])
      std::cout << "  " << a["slot"].get<std::string>() << " = "
                << (a["value"].is_number()
                        ? sb::units::format(a["value"].get<double>(), a["unit"].get<std::string>())
                        : "n/a")
                << "\n";
  }
  return 0;
}

int cmd_chips(bool as_json) {
  json r = sb::api::handle(json{{"op", "chips"}});
  if (!r["ok"].get<bool>()) return print_error(r, as_json);
  if (as_json) {
    std::cout << r.dump(2) << "\n";
    return 0;
  }
  for (const auto& c : r["chips"]) {
    std::cout << c["id"].get<std::string>() << "  " << c["name"].get<std::string>() << "\n";
    for (auto it = c["specs"].begin(); it != c["specs"].end(); ++it) {
      const auto& s = it.value();
      // A stated unknown ("value": null) prints its note: why the book gives no figure.
      std::string v = s.contains("text") ? s["text"].get<std::string>()
                      : s["value"].is_number()
                          ? sb::units::format(s["value"].get<double>(), s.value("unit", "count"))
                          : "not known (" + s.value("note", "") + ")";
      std::cout << "    " << it.key() << " = " << v << "   [" << s.value("source", "") << "]\n";
    }
  }
  return 0;
}

// A chapter's command (Calculator::command): the calculator on its defaults; --json prints the
// rows under the command's name, the plain form its table (texts, the header first) in columns.
int cmd_table(const sb::Calculator& c, bool as_json) {
  json r = sb::api::handle(json{{"op", "calc"}, {"name", c.name}});
  if (!r["ok"].get<bool>()) return print_error(r, as_json);
  if (as_json) {
    std::cout << r[std::string(c.command)].dump(1) << "\n";
    return 0;
  }
  print_table(r["table"]);
  return 0;
}

const sb::Param* long_text_of(const sb::Calculator& c) {
  for (const auto& p : c.params)
    if (p.long_text) return &p;
  return nullptr;
}

// The usage, with the commands calculators declare (Calculator::command) after the fixed ones: a
// table on the defaults (scaling models), or a calculator fed a file (scaling fit-collective FILE).
std::string usage() {
  std::string u = kUsage;
  for (const auto& c : sb::Registry::get().calculators()) {
    if (c.command.empty()) continue;
    const sb::Param* text = long_text_of(c);
    std::string line = "  scaling " + std::string(c.command) +
                       (text ? " FILE... [--PARAM VALUE ...] [--json]" : " [--json]");
    line.resize(std::max(line.size() + 1, size_t{45}), ' ');
    u += line + std::string(c.title);
    if (text)
      u += " (calc " + std::string(c.name) + ", FILE into --" + std::string(text->name) + ")";
    u += "\n";
  }
  return u + kUsageEnd;
}

// `scaling COMMAND FILE [--PARAM VALUE ...] [--json]`: the calculator declaring COMMAND, with FILE
// ("-": standard input) read into its long-text param; the rest as for `scaling calc`.
int cmd_file(const std::vector<std::string>& args, const sb::Calculator& c) {
  const std::string text(long_text_of(c)->name), command(c.command);
  const bool help = args.size() > 2 && (args[2] == "--help" || args[2] == "-h");
  if (args.size() < 3 || help || (args[2].rfind("--", 0) == 0)) {
    std::ostream& o = help ? std::cout : err();
    if (!help)
      o << "error in " << text << ": " << command << " needs a FILE first (- for standard input)\n";
    o << "usage: scaling " << command << " FILE [--PARAM VALUE ...] [--json]\n\n";
    if (help)
      print_help_params(std::string(c.title) + " (scaling calc " + std::string(c.name) +
                            " with FILE as --" + text + ")",
                        c.doc, c.params);
    return help ? 0 : 2;
  }
  // Several FILEs (those before the first flag) are joined, one after another, into the input.
  size_t end = 3;
  while (end < args.size() && args[end].rfind("--", 0) != 0) ++end;
  if (end == 3) {
    std::vector<std::string> calc = {args[0], "calc", std::string(c.name), "--" + text, args[2]};
    calc.insert(calc.end(), args.begin() + 3, args.end());
    return cmd_calc(calc);
  }
  std::string joined;
  for (size_t i = 2; i < end; ++i) {
    std::string one;
    if (!read_long_text(*long_text_of(c), args[i], one)) return 2;
    joined += one + "\n";
  }
  if (joined.size() > sb::kLongTextBytes) {
    err() << "error in " << text << ": the files together are over " << sb::kLongTextBytes
          << " bytes\n";
    return 2;
  }
  std::vector<std::string> calc = {args[0], "calc", std::string(c.name)};
  calc.insert(calc.end(), args.begin() + static_cast<long>(end), args.end());
  return cmd_calc(calc, json{{text, joined}});
}
// The whole command: args as main receives them (args[0] the program), the exit status returned.
int dispatch(const std::vector<std::string>& args) {
  try {
    if (args.size() < 2 || args[1] == "--help" || args[1] == "-h" || args[1] == "help") {
      (args.size() < 2 ? err() : std::cout) << usage();
      return args.size() < 2 ? 2 : 0;
    }
    const std::string& cmd = args[1];
    if (cmd == "calc") return cmd_calc(args);
    if (cmd == "problem") return cmd_problem(args);
    if (cmd == "check") return cmd_check(args);
    if (cmd == "fit-collective") return cmd_fit(args);
    struct Plain {
      const char* name;
      const char* usage;
      int (*run)(bool as_json);
    };
    static const Plain kPlain[] = {
        {"list", "usage: scaling list [--json]\ncalculators and problems\n", cmd_list},
        {"problems",
         "usage: scaling problems [--json]\nevery problem's answers computed by the "
         "chapter models\n",
         cmd_problems},
        {"chips",
         "usage: scaling chips [--json]\nthe hardware tables with the source of each "
         "figure\n",
         cmd_chips},
    };
    for (const auto& c : kPlain) {
      if (cmd != c.name) continue;
      bool as_json = false, help = false;
      if (!no_arguments(args, 2, c.usage, as_json, help)) return 2;
      if (help) {
        std::cout << c.usage;
        return 0;
      }
      return c.run(as_json);
    }
    for (const auto& c : sb::Registry::get().calculators()) {
      if (c.command.empty() || c.command != cmd) continue;
      if (long_text_of(c)) return cmd_file(args, c);
      const std::string use = "usage: scaling " + cmd + " [--json]\n" + std::string(c.doc) + "\n";
      bool as_json = false, help = false;
      if (!no_arguments(args, 2, use.c_str(), as_json, help)) return 2;
      if (help) {
        std::cout << use;
        return 0;
      }
      return cmd_table(c, as_json);
    }
    err() << "error: unknown command '" << cmd << "'\n" << usage();
    return 2;
  } catch (const std::exception& e) {
    err() << "error: " << e.what() << "\n";
    return 2;
  }
}

int run(const std::vector<std::string>& args) {
  err().str("");
  const int code = dispatch(args);
  const std::string text = err().str();
  if (text.empty()) return code;
  std::cerr << text;
  const bool as_json = std::find(args.begin(), args.end(), "--json") != args.end();
  if (code == 2 && as_json && text.rfind("error", 0) == 0)
    std::cout << error_json(text).dump(2) << "\n";
  return code;
}

}  // namespace

// tests/core/cli_test.cpp compiles this file with SB_CLI_NO_MAIN and calls run().
#ifndef SB_CLI_NO_MAIN
int main(int argc, char** argv) { return run(std::vector<std::string>(argv, argv + argc)); }
#endif
