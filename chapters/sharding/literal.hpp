// The Python-style literals the book and JAX write meshes in (notation.hpp lists the spellings):
// numbers, quoted names, tuples, {key: value} dicts and calls with keyword arguments, read into a
// tree. The mesh (mesh.cpp) is built from that tree; other Python spellings can reuse it.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sb::sharding {

struct Val {
  enum Kind { Int, Num, Str, Ident, Tuple, Dict, Call } kind = Int;
  std::size_t at = 0;
  long long i = 0;
  std::string s;                    // Str/Ident text, Call name
  std::vector<Val> items;           // Tuple items, Call positional args
  std::vector<std::string> keys;    // Dict keys, Call keyword names
  std::vector<Val> kvals;           // their values (parallel to keys)
  std::vector<std::size_t> key_at;  // where each key is
};

// Reads `text` as one literal, left to right, nesting capped at 16 levels; bare "X=4, Y=4" entries
// read as a dict. Errors are InputError(field, "bad_mesh") pointing at the character.
Val read_literal(std::string_view text, std::string_view field);

}  // namespace sb::sharding
