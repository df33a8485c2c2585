// Reading the TPU chapter's texts (slice shapes, chip coordinates, array types): the helpers
// text.cpp and torus.cpp share.
#pragma once
#include <string>

namespace sb::tpus::text {

std::string trim(const std::string& s);
// At most 40 characters of s, for an error message.
std::string clip(const std::string& s);
std::string lower(std::string s);
// Reads one whole number (with optional sign) from `tok`; InputError naming what it is.
long long parse_int(const std::string& tok, const std::string& field, const std::string& what,
                    const std::string& whole);

}  // namespace sb::tpus::text
