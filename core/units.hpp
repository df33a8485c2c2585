// Quantities live in SI base units inside the core (s, B, FLOPs, FLOPs/s, B/s). Unit names and
// prefixes exist only here, in parsing what a reader typed and formatting what we show.
// Unit ids are the catalogue's: s, B, flop, flop_per_s, B_per_s, flop_per_B, tokens,
// tokens_per_s, per_s, hz, count, ratio, chips, usd, usd_per_hour, bool.
// Decimal prefixes are powers of 1000 (1 GB = 1e9 B); binary ones are named (1 GiB = 2^30 B).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "core/json.hpp"

namespace sb::units {

// True if `unit` is one of the ids above.
bool known(std::string_view unit);

// Parse "1.2 ms", "4.5e10 B/s", "45 GB/s", "16 GiB", "240", "1,024", "2k", "50%" into the base
// unit of `unit`. A bare number is taken in the base unit. Throws InputError naming `field` for
// malformed text, a unit of the wrong kind (bytes where a time is asked) or a non-finite value.
double parse(std::string_view text, std::string_view unit, std::string_view field);

// "1.37 ms", "820 GB/s", "1.97e14 FLOPs/s", "240 FLOPs/B", "1,024 tokens" (4 significant digits).
std::string format(double value, std::string_view unit);
// The same written at out, which has room for kFormatRoom chars; returns the length.
constexpr size_t kFormatRoom = 128;
size_t write_format(char* out, double value, std::string_view unit);

// A plain number with `sig` significant digits, e.g. 240.2439 -> "240.2", 1.97e14 -> "1.97e14".
std::string number(double value, int sig = 4);
// The same written at out, which has room for kNumberRoom chars; returns the length.
constexpr size_t kNumberRoom = 48;
size_t write_number(char* out, double value, int sig = 4);

// The unit's symbol for labels: "s", "B", "FLOPs", "FLOPs/s", "B/s", "FLOPs/B", "tokens", ...
std::string symbol(std::string_view unit);

// An example of what the reader may type, for placeholders and error messages ("1.2 ms").
std::string example(std::string_view unit);

// The unit table as the site reads it (op "units"; the site build writes it to data/units.json,
// and web/lib/format.js formats with it): per unit its id, symbol, an example of what to type,
// and how format() writes it. `prefixes` is "si" where format() picks a decimal prefix ("820
// GB/s") and "none" where it writes a plain number ("1.97e14 FLOPs/s"); a reader may type
// prefixes with any unit. A value v is written as before + number(v / scale) + after of the
// first of `forms` whose `at` |v| reaches (largest first), else as before + number(v) + after;
// a bool as words[v != 0].
json table_json();

}  // namespace sb::units
