// Quantities live in SI base units inside the core (s, B, FLOPs, FLOPs/s, B/s). Unit names and
// prefixes exist only here, in parsing what a reader typed and formatting what we show.
// Unit ids are the catalogue's: s, B, flop, flop_per_s, B_per_s, flop_per_B, tokens,
// tokens_per_s, per_s, hz, count, ratio, chips, usd, usd_per_hour, bool.
// Decimal prefixes are powers of 1000 (1 GB = 1e9 B); binary ones are named (1 GiB = 2^30 B).
#pragma once
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/json.hpp"

namespace sb::units {

// True if `unit` is one of the ids above.
bool known(std::string_view unit);

// Parse "1.2 ms", "4.5e10 B/s", "45 GB/s", "16 GiB", "240", "1,024", "2k", "16G", "50%" into the
// base unit of `unit`. A bare number is taken in the base unit. Throws InputError naming `field`
// for malformed text, a unit of the wrong kind (bytes where a time is asked) or a non-finite value.
//
// The rules a reader's text follows:
// - Digits may be grouped: by commas in thousands only ("1,024", "12,345,678.5": a first group
//   of 1 to 3 digits, then groups of exactly 3, before any point), or by underscores anywhere
//   between digits ("8_192"). Any other comma ("1,5", "0,25", "1,0000") is refused with a
//   "cannot read" message: it may be a decimal comma, and reading "1,5" as 15 would be wrong.
// - "x 10^k", "*10^k" and "×10^k" after the number scale it, as the book writes.
// - Prefixes are decimal (k = 1e3, M = 1e6, G = 1e9, T, P, E; m, u/µ, n, p below one); binary
//   ones are named (Ki, Mi, Gi, Ti, Pi). A big prefix may stand alone, on the asked unit: "16G"
//   bytes is 16e9 B, "2M" tokens 2e6, "1k" 1000; "2 M tokens" and "1.5 k chips" too. A small one
//   alone ("5m") is refused, as minutes and milliseconds would both be guesses.
// - A unit is "<prefix>unit", "<prefix>unit/<prefix>unit" or "unit per unit"; "FLOPS" and "OPS"
//   in capitals are rates; "$" may come first ("$1.20", "$4.20/h").
double parse(std::string_view text, std::string_view unit, std::string_view field);

// The same, with the binary reading of the text where it has one: each decimal prefix taken as
// the power of 1024 a reader may have meant ("2M" -> 2^21, "16 GB" -> 16 * 2^30 B, "1k" ->
// 1024). Whether a slot means one is the grader's call; `binary` is empty when the text has no
// decimal prefix of k or above.
struct Quantity {
  double value = 0;              // base units, prefixes decimal
  std::optional<double> binary;  // base units, decimal prefixes read as binary
};
Quantity parse_quantity(std::string_view text, std::string_view unit, std::string_view field);

// An answer that is a bound: "X < 8", "< 8", "<= 8", "at most 8", "b_crit >= 240 tokens", or a
// plain quantity (Equal). Signs: < <= =< ≤ > >= => ≥ = == ~ ≈; words: at most, no more than,
// up to, at least, no less than, less than, fewer than, below, under, more than, greater than,
// above, over. A name before the sign is kept, not checked. The quantity after it follows parse().
enum class Relation { Equal, Below, AtMost, Above, AtLeast };
struct Bound {
  Relation relation = Relation::Equal;
  double value = 0;              // as parse() reads the quantity
  std::optional<double> binary;  // as parse_quantity() reads it
  std::string name;              // "X" in "X < 8"; empty if none
};
Bound parse_bound(std::string_view text, std::string_view unit, std::string_view field);

// v rounded to `digits` significant digits, half away from zero: 1024 to 1 digit is 1000,
// 1.342e8 to 2 is 1.3e8. The book rounds its intermediate figures so (a solver's shortcuts), and
// the grader reads an answer typed with fewer digits against it.
double round_sig(double v, int digits);

// A size in bytes called by the decimal name of its binary size, as the book often does: 2^34 B
// is 16 GiB and reads "16 GB" = 16e9 B; 2^21 B reads 2e6, 32768 B reads 32e3. The largest binary
// prefix (Ki to Pi) at or below the size is swapped for its decimal one; below 1024 B the size
// is unchanged.
double decimal_name(double bytes);
// The two names of such a size for a shortcut's note: "2^34 B (16 GiB) as 16 GB",
// "3 MiB as 3 MB"; below 1 KiB, "512 B as 512 B".
std::string decimal_name_text(double bytes);

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
// A count as its whole digits, cut toward zero, up to 1e15 (4096.7 -> "4096"); past that to four
// digits, as number() writes it (9.999999999999999e22 -> "1e23"). A cast to an integer type is
// undefined past its range, and a count derived from inputs can pass any.
inline std::string whole(double value) {
  return std::fabs(value) < 1e15 ? number(std::trunc(value), 17) : number(value);
}
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
