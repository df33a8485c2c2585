// What every derivation step writes (formula.hpp): a record's numbers filled into its rendered
// form, and the TeX of a symbol's name. Calculators write several steps a call, so this file
// compiles at -O2 while formula.cpp, which renders each record once, stays at -Oz
// (CMakeLists.txt), and both write straight into the step's text, with no string of their own.
#include "core/formula.hpp"
#include "core/json.hpp"
#include "core/trace.hpp"

namespace sb::records {

namespace {

bool greek(Text s) {
  constexpr Text kGreek[] = {"alpha", "beta",   "gamma", "delta", "epsilon", "eta",   "theta",
                             "kappa", "lambda", "mu",    "nu",    "pi",      "rho",   "sigma",
                             "tau",   "phi",    "chi",   "psi",   "omega",   "Gamma", "Delta",
                             "Theta", "Lambda", "Sigma", "Phi",   "Psi",     "Omega"};
  for (Text g : kGreek)
    if (s == g) return true;
  return false;
}

// One side of a name's underscore: a letter as it is, a greek name as its letter, a word upright.
void append_part(Out& out, Text p) {
  if (p.size() == 1) {
    out << p;
  } else if (greek(p)) {
    out << '\\' << p;
  } else {
    out << "\\mathrm{";
    for (char c : p) {
      if (c == '_')
        out << "\\_";
      else
        out << c;
    }
    out << '}';
  }
}

}  // namespace

void append_tex_name(Out& out, Text name, std::span<const Symbol> table) {
  for (const Symbol& s : table)
    if (s.name == name) {
      if (!s.tex.empty()) {
        out << s.tex;
        return;
      }
      break;
    }
  const size_t u = name.find('_');
  if (u == Text::npos || u == 0 || u + 1 == name.size()) return append_part(out, name);
  append_part(out, name.substr(0, u));
  out << "_{";
  append_part(out, name.substr(u + 1));
  out << '}';
}

void fill(Out& out, const Rendered& r, const double* x) {
  bool first = true;
  for (const Piece& p : r.numbers) {
    out << p.text;
    if (p.arg < 0) continue;
    const double v = x[p.arg];
    // A negative number after an operator reads as one in parentheses.
    const bool wrap = v < 0 && !(first && p.text.empty());
    if (wrap) out << "\\left(";
    append_tex(out, v);
    if (wrap) out << "\\right)";
    first = false;
  }
}

std::string tex_name(Text name, std::span<const Symbol> table) {
  Out out;
  append_tex_name(out, name, table);
  return out.str();
}

}  // namespace sb::records
