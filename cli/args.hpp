// The `scaling` command's arguments (flags, --given and SLOT=ANSWER pairs, long-text files) and
// its error output. Part of main.cpp, included there alone: the CLI is one translation unit, which
// the tests compile in (SB_CLI_NO_MAIN).
#pragma once
#include <fstream>
#include <iostream>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "core/api.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"

using sb::json;

namespace {

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

}  // namespace
