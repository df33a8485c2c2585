#include "core/plain_tex.hpp"

#include <algorithm>
#include <cctype>

namespace sb {

namespace {

bool is_letter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Whether a converted piece reads as one term without parentheses: a name, a number, |X|.
bool atomic(std::string_view s) {
  if (s.empty()) return true;
  if (s.front() == '(' && s.back() == ')') {  // one group already, not "(a) / (b)"
    int depth = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
      if (depth == 0 && i + 1 < s.size()) return false;
    }
    return true;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ' ' || c == '+' || c == '*' || c == '/' || c == '=' || c == '<' || c == '>' ||
        c == ',' || c == '?' || c == ':')
      return false;
    if (c == '-' && i > 0 && s[i - 1] != 'e') return false;  // a minus, not 1e-4's
  }
  return true;
}

std::string wrap(const std::string& s) { return atomic(s) ? s : "(" + s + ")"; }

// Words for commands; a command not listed keeps its name.
std::string_view word(std::string_view cmd) {
  struct Pair {
    std::string_view tex, plain;
  };
  static constexpr Pair kWords[] = {
      {"cdot", " * "},      {"times", " x "}, {"approx", " ~ "},  {"le", " <= "},
      {"leq", " <= "},      {"ge", " >= "},   {"geq", " >= "},    {"lt", " < "},
      {"gt", " > "},        {"ll", " << "},   {"gg", " >> "},     {"ne", " != "},
      {"neq", " != "},      {"in", " in "},   {"to", " -> "},     {"infty", "inf"},
      {"ldots", "..."},     {"cdots", "..."}, {"lceil", "ceil("}, {"rceil", ")"},
      {"lfloor", "floor("}, {"rfloor", ")"},  {"left", ""},       {"right", ""},
      {"quad", "  "},       {"qquad", "  "},
  };
  for (const auto& p : kWords)
    if (p.tex == cmd) return p.plain;
  return cmd;
}

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  // Everything, a stray '}' kept as written.
  std::string all() {
    std::string out = run();
    while (i_ < s_.size()) {
      out += s_[i_++];
      out += run();
    }
    return out;
  }

  // Everything up to the end or an unmatched '}'.
  std::string run() {
    std::string out;
    while (i_ < s_.size() && s_[i_] != '}') piece(out);
    return out;
  }

 private:
  // A {group} or a single character/command, converted.
  std::string arg() {
    skip_spaces();
    if (i_ >= s_.size()) return {};
    if (s_[i_] == '{') {
      ++i_;
      std::string in = run();
      if (i_ < s_.size()) ++i_;  // the closing '}'
      return in;
    }
    std::string one;
    piece(one);
    return one;
  }

  void skip_spaces() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }

  // Reads a sub- or superscript after `out`: a name gets "_sub", a power "^2" or "^(n+1)".
  void script(std::string& out, char mark) {
    ++i_;
    std::string a = arg();
    if (mark == '_') {
      for (char& c : a)
        if (c == ' ') c = '_';
      out += '_';
      out += a;
      return;
    }
    // 10^{14} as a number: "1.97 x 10^{14}" -> "1.97e14", a bare 10^{12} -> "1e12".
    const size_t n = out.size();
    bool whole = !a.empty();
    for (size_t q = 0; q < a.size(); ++q)
      whole = whole && (is_digit(a[q]) || (q == 0 && a[q] == '-'));
    if (whole && n >= 2 && out.compare(n - 2, 2, "10") == 0 &&
        (n == 2 || !(is_digit(out[n - 3]) || out[n - 3] == '.' || is_letter(out[n - 3])))) {
      std::string before = out.substr(0, n - 2);
      size_t j = before.size();
      while (j > 0 && before[j - 1] == ' ') --j;
      if (j >= 2 && before[j - 1] == 'x' && before[j - 2] == ' ') {  // "<mantissa> x 10^"
        size_t end = j - 2;
        while (end > 0 && before[end - 1] == ' ') --end;
        size_t k = end;
        while (k > 0 && (is_digit(before[k - 1]) || before[k - 1] == '.' || before[k - 1] == '-'))
          --k;
        if (k < end) {
          out = before.substr(0, end) + "e" + a;
          return;
        }
      }
      out = before + "1e" + a;
      return;
    }
    out += '^';
    out += wrap(a);
  }

  void piece(std::string& out) {
    const char c = s_[i_];
    if (c == '{') {  // a bare group: its content
      ++i_;
      out += run();
      if (i_ < s_.size()) ++i_;
      return;
    }
    if (c == '_' || c == '^') return script(out, c);
    if (c != '\\') {
      out += c;
      ++i_;
      return;
    }
    ++i_;
    if (i_ >= s_.size()) return;
    if (!is_letter(s_[i_])) {  // \, \; \  \{ \} \|
      const char e = s_[i_++];
      out += (e == ',' || e == ';' || e == ' ' || e == '!') ? std::string(" ") : std::string(1, e);
      return;
    }
    const size_t from = i_;
    while (i_ < s_.size() && is_letter(s_[i_])) ++i_;
    const std::string_view cmd = s_.substr(from, i_ - from);
    if (cmd == "frac") {
      std::string num = arg(), den = arg();
      out += wrap(num) + " / " + wrap(den);
    } else if (cmd == "sqrt") {
      out += "sqrt(" + arg() + ")";
    } else if (cmd == "text" || cmd == "mathrm" || cmd == "mathit" || cmd == "mathbf" ||
               cmd == "operatorname") {
      out += arg();
    } else if (cmd == "sum" || cmd == "prod") {
      out += cmd;
      skip_spaces();
      if (i_ < s_.size() && s_[i_] == '_') {  // \prod_{unused axes} -> "prod over unused axes"
        ++i_;
        out += " over " + arg();
      }
      out += ' ';
    } else {
      out += word(cmd);
    }
  }

  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

std::string plain_tex(std::string_view tex) {
  std::string raw = Reader(tex).all();
  // One space between words: the commands above bring their own.
  std::string out;
  for (char c : raw) {
    if (c == ' ' && (out.empty() || out.back() == ' ' || out.back() == '(')) continue;
    if (c == ')' && !out.empty() && out.back() == ' ') out.pop_back();
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string plain_sentence(std::string_view sentence) {
  std::string out;
  size_t at = 0;
  while (at < sentence.size()) {
    const size_t open = sentence.find('$', at);
    const size_t close = open == std::string_view::npos ? open : sentence.find('$', open + 1);
    if (close == std::string_view::npos) break;  // no pair: the rest is words
    out.append(sentence.substr(at, open - at));
    out += plain_tex(sentence.substr(open + 1, close - open - 1));
    at = close + 1;
  }
  out.append(sentence.substr(std::min(at, sentence.size())));
  return out;
}

}  // namespace sb
