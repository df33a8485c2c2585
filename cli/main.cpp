// The `scaling` command: the same registry and JSON entry point as the web page, in a terminal.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

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

// Argument errors are written to err(), then by run() to stderr; with --json the first one is
// also printed on stdout as the API's error object, so a script reading JSON always gets JSON.
std::ostringstream& err() {
  static std::ostringstream s;
  return s;
}

// "error in FIELD: MESSAGE" (or "error: MESSAGE") and what follows it: the API's error object.
json error_json(const std::string& text) {
  std::string line = text.substr(0, text.find('\n')), field;
  if (line.rfind("error in ", 0) == 0) {
    const size_t colon = line.find(": ");
    field = line.substr(9, colon == std::string::npos ? std::string::npos : colon - 9);
    line = colon == std::string::npos ? "" : line.substr(colon + 2);
  } else if (line.rfind("error: ", 0) == 0) {
    line = line.substr(7);
  }
  return json{{"ok", false},
              {"error", {{"code", "bad_argument"}, {"message", line}, {"field", field}}}};
}

int print_error(const json& r, bool as_json) {
  if (as_json) std::cout << r.dump(2) << "\n";
  const auto& e = r["error"];
  std::cerr << "error";
  if (e.contains("field") && !e["field"].get<std::string>().empty())
    std::cerr << " in " << e["field"].get<std::string>();
  std::cerr << ": " << e["message"].get<std::string>() << "\n";
  return 2;
}

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

// The text of FILE ("-": standard input) for a long-text param, at most kLongTextBytes; false
// after saying why there is none. Reads at most one byte past the cap, however large the file.
bool read_long_text(const sb::Param& p, const std::string& file, std::string& text) {
  std::ifstream f;
  std::istream* in = &std::cin;
  if (file != "-") {
    f.open(file, std::ios::binary);
    if (!f) {
      err() << "error in " << p.name << ": cannot read the file '" << file << "'\n";
      return false;
    }
    in = &f;
  }
  text.resize(sb::kLongTextBytes + 1);
  in->read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in->gcount()));
  if (in->bad()) {
    err() << "error in " << p.name << ": cannot read the file '" << file << "'\n";
    return false;
  }
  if (text.size() > sb::kLongTextBytes) {
    err() << "error in " << p.name << ": the file '" << file << "' is over " << sb::kLongTextBytes
          << " bytes (16 MiB), the most a long text may be\n";
    return false;
  }
  return true;
}

// --name value pairs into a JSON object of strings (the core parses units). A name that is not
// one of `params`, or one given twice, stops the reading at once: the work stays linear in the
// number of arguments, and a typo is never silently a default.
bool flags(const std::vector<std::string>& args, size_t from, std::span<const sb::Param> params,
           json& out, bool& as_json, bool& help) {
  std::vector<bool> seen(params.size(), false);
  for (size_t i = from; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--json") {
      as_json = true;
      continue;
    }
    if (a == "--help" || a == "-h") {
      help = true;
      continue;
    }
    if (a.rfind("--", 0) != 0) {
      err() << "error: expected --NAME VALUE, got '" << a << "'\n";
      return false;
    }
    std::string name = a.substr(2), val;
    size_t eq = name.find('=');
    if (eq != std::string::npos) name = name.substr(0, eq);
    size_t k = 0;
    while (k < params.size() && params[k].name != name) ++k;
    if (k == params.size()) {
      err() << "error in " << name << ": unknown parameter --" << name << "; this takes";
      for (const auto& p : params) err() << " --" << p.name;
      err() << "\n";
      return false;
    }
    if (seen[k]) {
      err() << "error in " << name << ": --" << name << " is given twice\n";
      return false;
    }
    seen[k] = true;
    if (eq != std::string::npos) {
      val = a.substr(2 + eq + 1);
    } else if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) {
      val = args[++i];
    } else {
      err() << "error in " << name << ": --" << name
            << (params[k].long_text ? " needs a FILE (- for standard input)" : " needs a value")
            << "\n";
      return false;
    }
    if (params[k].long_text) {
      std::string text;
      if (!read_long_text(params[k], val, text)) return false;
      val = std::move(text);
    }
    out[name] = std::move(val);
  }
  return true;
}

// For a command that takes no arguments of its own: anything but --json and --help is an error.
bool no_arguments(const std::vector<std::string>& args, size_t from, const char* usage,
                  bool& as_json, bool& help) {
  for (size_t i = from; i < args.size(); ++i) {
    if (args[i] == "--json") {
      as_json = true;
    } else if (args[i] == "--help" || args[i] == "-h") {
      help = true;
    } else {
      err() << "error: unexpected argument '" << args[i] << "'\n" << usage;
      return false;
    }
  }
  return true;
}

// The arguments of `problem` and `check` after the ID: SLOT=ANSWER pairs (check only), --given
// NAME=VALUE pairs, --json. Each name is checked against the problem as it is read, so that a typo
// or a repeat stops at once.
struct ProblemArgs {
  json answers = json::object(), given = json::object();
  bool as_json = false;
};

// NAME=VALUE into `into`, NAME one of items' names, not seen before. `what` names the kind
// ("given", "answer slot"), `field` prefixes the name in messages ("", "answers.").
template <class Item>
bool take_pair(const std::string& a, const sb::Problem& p, std::span<const Item> items,
               std::vector<bool>& seen, const char* what, const char* field, json& into) {
  const size_t eq = a.find('=');
  if (eq == std::string::npos || eq == 0) {
    err() << "error: expected " << (*field ? "SLOT=ANSWER" : "NAME=VALUE after --given")
          << ", got '" << a << "'\n";
    return false;
  }
  const std::string name = a.substr(0, eq);
  size_t k = 0;
  while (k < items.size() && items[k].name != name) ++k;
  if (k == items.size()) {
    err() << "error in " << field << name << ": " << p.id << " has no " << what << " '" << name
          << "'; ";
    if (items.empty()) err() << "it has none";
    for (size_t i = 0; i < items.size(); ++i) err() << (i ? ", " : "it has: ") << items[i].name;
    err() << "\n";
    return false;
  }
  if (seen[k]) {
    err() << "error in " << field << name << ": " << name << " is given twice\n";
    return false;
  }
  seen[k] = true;
  into[name] = a.substr(eq + 1);
  return true;
}

bool problem_args(const std::vector<std::string>& args, const sb::Problem& p, bool with_answers,
                  ProblemArgs& out) {
  std::vector<bool> seen_slot(p.slots.size(), false), seen_given(p.given.size(), false);
  for (size_t i = 3; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") {
      out.as_json = true;
    } else if (a == "--given") {
      if (i + 1 >= args.size()) {
        err() << "error in given: --given needs NAME=VALUE\n";
        return false;
      }
      const std::span<const sb::Param> given = p.given;
      if (!take_pair(args[++i], p, given, seen_given, "given", "", out.given)) return false;
    } else if (with_answers && a.rfind("--", 0) != 0) {
      const std::span<const sb::Slot> slots = p.slots;
      if (!take_pair(a, p, slots, seen_slot, "answer slot", "answers.", out.answers)) return false;
    } else {
      err() << "error: unexpected argument '" << a << "'; expected "
            << (with_answers ? "SLOT=ANSWER, " : "") << "--given NAME=VALUE or --json\n";
      return false;
    }
  }
  return true;
}

// The problem named by args[2], or nullptr after printing why there is none.
const sb::Problem* find_problem(const std::vector<std::string>& args) {
  try {
    return &sb::Registry::get().problem(args[2]);
  } catch (const sb::InputError& e) {
    err() << "error in " << e.field << ": " << e.what() << "\n";
    return nullptr;
  }
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

int cmd_calc(const std::vector<std::string>& args) {
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
  json inputs = json::object();
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
      std::string v = s.contains("text") ? s["text"].get<std::string>()
                      : s["value"].is_number()
                          ? sb::units::format(s["value"].get<double>(), s.value("unit", "count"))
                          : "?";
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
  std::vector<size_t> width;
  for (const auto& row : r["table"])
    for (size_t i = 0; i < row.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], row[i].get<std::string>().size());
    }
  for (const auto& row : r["table"]) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      std::string cell = row[i].get<std::string>();
      // The first column reads left to right, the numbers line up on the right.
      const std::string pad(width[i] - cell.size(), ' ');
      line += i == 0 ? cell + pad : "  " + pad + cell;
    }
    std::cout << line << "\n";
  }
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
                       (text ? " FILE [--PARAM VALUE ...] [--json]" : " [--json]");
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
  std::vector<std::string> calc = {args[0], "calc", std::string(c.name), "--" + text, args[2]};
  calc.insert(calc.end(), args.begin() + 3, args.end());
  return cmd_calc(calc);
}

// ------------------------------------------------------------------------------ fit-collective --

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
