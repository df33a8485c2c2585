// Quantities live in SI base units inside the core (s, B, FLOPs, FLOPs/s, B/s). Unit names and
// prefixes exist only here, in parsing what a reader typed and formatting what we show.
// Unit ids are the catalogue's: s, B, flop, flop_per_s, B_per_s, flop_per_B, tokens,
// tokens_per_s, per_s, count, ratio, chips, usd, usd_per_hour, bool.
// Decimal prefixes are powers of 1000 (1 GB = 1e9 B); binary ones are named (1 GiB = 2^30 B).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

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

// A plain number with `sig` significant digits, e.g. 240.2439 -> "240.2", 1.97e14 -> "1.97e14",
// for every double, subnormals included (5e-324 -> "4.941e-324"). The digits are the value
// rounded half away from zero, computed in doubles: up to 8 digits exactly, at 9 to 15 the last
// may be one off where the value lies within a few parts in 1e16 of a half. A sig over 15 gives
// the shortest text that reads back as the same double.
std::string number(double value, int sig = 4);
// The same written at out, which has room for kNumberRoom chars; returns the length.
constexpr size_t kNumberRoom = 48;
size_t write_number(char* out, double value, int sig = 4);

// The unit's symbol for labels: "s", "B", "FLOPs", "FLOPs/s", "B/s", "FLOPs/B", "tokens", ...
std::string symbol(std::string_view unit);

// An example of what the reader may type, for placeholders and error messages ("1.2 ms").
std::string example(std::string_view unit);

}  // namespace sb::units
