// A derivation's TeX as plain text for a terminal: what the CLI prints where the page typesets.
// It reads the subset the chapters write (\frac, sub- and superscripts, \mathrm, \text, \sqrt,
// floors and ceilings, sums and products, relations); numbers in scientific form read as 1.97e14.
#pragma once
#include <string>
#include <string_view>

namespace sb {

// "T_{math} = \frac{\mathrm{FLOPs}}{\mathrm{peak}}" -> "T_math = FLOPs / peak";
// "\frac{2.749 \times 10^{11}}{1.97 \times 10^{14}}" -> "2.749e11 / 1.97e14".
std::string plain_tex(std::string_view tex);

// A sentence of a derivation with inline math between dollar signs, as Trace writes a step's
// words: "Compute-bound when $B > I_{hw}$" -> "Compute-bound when B > I_hw".
std::string plain_sentence(std::string_view sentence);

}  // namespace sb
