// The chip tests' shared check: a calculator run on a chip whose tables state figures unknown.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "core/json.hpp"

namespace sb::test {

// A calculator run on a chip that states some figures unknown (TPU v2's HBM bandwidth, its pod):
// a result, or an error naming `field` that says which figure of the chip is not known (or, for a
// figure the tables leave out, that the book gives none). Returns whether it was a result.
inline bool ok_or_not_known(const json& r, const std::string& chip_name,
                            const std::string& field = "chip") {
  if (r["ok"].get<bool>()) return true;
  const std::string message = r["error"]["message"].get<std::string>();
  EXPECT_EQ(r["error"]["field"], field) << message;
  EXPECT_EQ(r["error"]["code"], "no_figure") << message;
  EXPECT_TRUE((message.find(chip_name + "'s ") != std::string::npos &&
               message.find(" is not known") != std::string::npos) ||
              (message.find("The book gives no ") != std::string::npos &&
               message.find(" for " + chip_name) != std::string::npos))
      << message;
  return false;
}

}  // namespace sb::test
