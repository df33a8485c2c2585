// The `scaling` command says what happened: every misuse is exit 2 with a message naming what was
// wrong, and the messages give the true reason. The CLI is one translation unit (main.cpp and the
// files it includes) with no library of its own, so the test compiles it in (without its main) and
// calls run() with captured output.
#define SB_CLI_NO_MAIN
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/main.cpp"

namespace {

struct Ran {
  int code;
  std::string out, err;
};

Ran cli(std::vector<std::string> args) {
  args.insert(args.begin(), "scaling");
  std::ostringstream out, err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  const int code = run(args);
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  return {code, out.str(), err.str()};
}

// Exit 2, and the error names `says`.
void refused(const std::vector<std::string>& args, const std::string& says) {
  const Ran r = cli(args);
  std::string line;
  for (const auto& a : args) line += a + " ";
  EXPECT_EQ(r.code, 2) << line << "\n" << r.out << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << line << "\nstderr: " << r.err;
}

}  // namespace

TEST(Cli, CheckNeedsAnswersOncePerSlot) {
  refused({"check", "roofline.Q2"}, "error in answers: no answers given; write SLOT=ANSWER");
  refused({"check", "roofline.Q2", "--given", "dtype_w=int8"}, "no answers given");
  refused({"check", "roofline.E6b"}, "roofline.E6b has no answers to check");
  refused({"check", "roofline.Q2", "b_crit=120", "b_crit=121"}, "b_crit is given twice");
  refused({"check", "roofline.Q2", "nope=1"},
          "roofline.Q2 has no answer slot 'nope'; it has: b_crit");
  refused({"check", "roofline.Q2", "b_crit=120", "extra"}, "expected SLOT=ANSWER, got 'extra'");
  refused({"check", "roofline.Q2", "b_crit=120", "--bogus"}, "unexpected argument '--bogus'");
  refused({"check", "roofline.Q2", "b_crit=120", "--given"}, "--given needs NAME=VALUE");
  refused(
      {"check", "roofline.Q2", "b_crit=1", "--given", "hbm_bw_Bps=1", "--given", "hbm_bw_Bps=2"},
      "hbm_bw_Bps is given twice");
  refused({"check", "no.such", "x=1"}, "error in id: no problem with id 'no.such'");
  refused({"check"}, "check needs a problem ID");
  // A decimal comma is invalid input (exit 2), not a silent 15; the result line says why.
  const Ran comma = cli({"check", "roofline.Q2", "b_crit=1,5"});
  EXPECT_EQ(comma.code, 2);
  EXPECT_NE(comma.out.find("b_crit: invalid (cannot read '1,5'"), std::string::npos) << comma.out;
  // Graded answers: 0 correct, 1 wrong.
  EXPECT_EQ(cli({"check", "roofline.Q2", "b_crit=1e9"}).code, 1);
}

// Answers all empty grade nothing: exit 2, not a silent 0. With --json every argument error is
// also the API's error object on stdout, so a script reading JSON gets JSON.
TEST(Cli, NothingGradedAndJsonErrors) {
  refused({"check", "roofline.Q2", "b_crit="},
          "every answer given is empty, so nothing was graded");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"calc", "no.such", "--json"},
           {"calc", "roofline.matmul", "--bogus", "1", "--json"},
           {"check", "roofline.Q2", "b_crit=", "--json"},
           {"problem", "roofline.Q2", "--given", "nope=1", "--json"},
           {"calc", "transformers.accounting", "--L", "5 chips", "--json"}}) {
    const Ran r = cli(args);
    EXPECT_EQ(r.code, 2) << args[1];
    const sb::json j = sb::json::parse(r.out);  // stdout is one JSON value
    EXPECT_EQ(j["ok"], false);
    EXPECT_FALSE(j["error"]["message"].get<std::string>().empty()) << r.out;
    EXPECT_FALSE(j["error"]["field"].get<std::string>().empty()) << r.out;
    EXPECT_FALSE(r.err.empty());  // and the person at the terminal reads it too
  }
}

TEST(Cli, ProblemTakesGivensAndNothingElse) {
  refused({"problem", "roofline.Q2", "extra"}, "unexpected argument 'extra'");
  refused({"problem", "roofline.Q2", "--given", "nope=1"}, "roofline.Q2 has no given 'nope'");
  refused({"problem", "roofline.Q2", "--given", "hbm_bw_Bps=-1"}, "greater than zero");
  refused({"problem"}, "problem needs a problem ID");
  // A given is applied: the statement then says it. roofline.Q2 with HBM at 1 TB/s.
  const Ran r = cli({"problem", "roofline.Q2", "--given", "hbm_bw_Bps=1 TB/s"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("1 TB/s"), std::string::npos) << r.out;
}

TEST(Cli, CommandsWithoutArgumentsRefuseThem) {
  for (const char* cmd : {"list", "chips", "problems"}) {
    refused({cmd, "--bogus"}, "unexpected argument '--bogus'");
    refused({cmd, "extra"}, "unexpected argument 'extra'");
    EXPECT_EQ(cli({cmd, "--help"}).code, 0) << cmd;
  }
  refused({"fly"}, "unknown command 'fly'");
  EXPECT_EQ(cli({}).code, 2);
}

TEST(Cli, CalcFlagsAreKnownGivenOnceAndHaveValues) {
  refused({"calc", "roofline.matmul", "--bogus", "1"}, "unknown parameter --bogus; this takes");
  refused({"calc", "roofline.matmul", "--B", "4", "--B", "5"}, "--B is given twice");
  refused({"calc", "roofline.matmul", "--B"}, "--B needs a value");
  refused({"calc", "roofline.matmul", "--B", "--D", "4"}, "--B needs a value");
  refused({"calc", "roofline.matmul", "extra"}, "expected --NAME VALUE, got 'extra'");
  refused({"calc", "no.such"}, "no calculator named 'no.such'");
  refused({"calc"}, "calc needs a calculator NAME");
  // 50k unknown flags stop at the first.
  std::vector<std::string> many = {"calc", "roofline.matmul"};
  for (int i = 0; i < 50000; ++i) many.insert(many.end(), {"--x" + std::to_string(i), "1"});
  refused(many, "error in x0: unknown parameter --x0");
}

// A derivation step with a value but no formula (Trace::value) prints its value too.
TEST(Cli, DerivationStepsPrintTheirValues) {
  const Ran r = cli({"problem", "sharding.EX6"});
  EXPECT_EQ(r.code, 0) << r.err;
  // 4x4x4 with wraparound: 2 x 64 / 4 = 32 links cross the bisection.
  EXPECT_NE(r.out.find("(the TPU chapter's count): 32\n"), std::string::npos) << r.out;
}

TEST(Cli, MessagesSayTheTrueReason) {
  // Enough digits to see why: 512.0000000000001 is not a whole number.
  refused({"calc", "roofline.matmul", "--B", "512.0000000000001"},
          "B must be a whole number, got 512.0000000000001");
  // Below zero is "greater than zero", not "between".
  refused({"calc", "roofline.matmul", "--B=-4"}, "B must be greater than zero, got -4 tokens");
  // Just past the maximum of D (1e7): the value's own digits, not "1e7".
  refused({"calc", "roofline.matmul", "--D", "10000000.5"},
          "D must be at most 1e7, got 10000000.5");
  refused({"calc", "roofline.matmul", "--D", "2e7"}, "D must be at most 1e7, got 2e7");
  refused({"calc", "roofline.matmul", "--B", "1e999"}, "not a finite number");
  EXPECT_EQ(cli({"calc", "roofline.matmul", "--D", "1e7"}).code, 0);
}

// A long-text input is read from a file (--NAME FILE, or the FILE of a calculator's command), up to
// 16 MiB; one byte more is refused naming the input and the file.
TEST(Cli, LongTextsAreReadFromFiles) {
  static constexpr sb::Param kSchema[] = {sb::long_text("log", "a pasted log"),
                                          sb::num("n", "count", 1, "a count")};
  const auto dir = std::filesystem::temp_directory_path() / "sb_cli_long_text";
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, size_t bytes) {
    std::ofstream f(dir / name, std::ios::binary);
    std::string line = "# nThread 1 nGpus 8\n";
    for (size_t n = 0; n < bytes; n += line.size()) f << line.substr(0, bytes - n);
    return (dir / name).string();
  };
  const std::string at_cap = write("at_cap.log", sb::kLongTextBytes);
  const std::string over = write("over.log", sb::kLongTextBytes + 1);
  json out = json::object();
  bool as_json = false, help = false;
  ASSERT_TRUE(
      flags({"scaling", "calc", "x", "--log", at_cap, "--n", "3"}, 3, kSchema, out, as_json, help));
  EXPECT_EQ(out["log"].get_ref<const std::string&>().size(), sb::kLongTextBytes);
  EXPECT_EQ(out["log"].get_ref<const std::string&>().substr(0, 20), "# nThread 1 nGpus 8\n");
  EXPECT_EQ(out["n"], "3");

  const auto refused_flags = [&](const std::vector<std::string>& args, const std::string& says) {
    err().str("");  // what run() would print on stderr
    json o = json::object();
    const bool ok = flags(args, 3, kSchema, o, as_json, help);
    EXPECT_FALSE(ok) << says;
    EXPECT_NE(err().str().find(says), std::string::npos) << err().str();
  };
  refused_flags({"scaling", "calc", "x", "--log", over},
                "error in log: the file '" + over + "' is over 16777216 bytes");
  refused_flags({"scaling", "calc", "x", "--log", (dir / "none.log").string()},
                "error in log: cannot read the file");
  refused_flags({"scaling", "calc", "x", "--log"}, "--log needs a FILE (- for standard input)");
  std::filesystem::remove_all(dir);
}

TEST(Cli, ACommandOfACalculatorNeedsItsFileFirst) {
  static constexpr sb::Param kSchema[] = {sb::long_text("log", "a pasted log")};
  const sb::Calculator c{.name = "x.fit",
                         .title = "Fit",
                         .doc = "",
                         .params = kSchema,
                         .run = nullptr,
                         .command = "fit"};
  std::ostringstream out;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  err().str("");  // what run() would print on stderr
  const int missing = cmd_file({"scaling", "fit"}, c);
  const int flag_first = cmd_file({"scaling", "fit", "--json", "a.log"}, c);
  const int help = cmd_file({"scaling", "fit", "--help"}, c);
  std::cout.rdbuf(old_out);
  EXPECT_EQ(missing, 2);
  EXPECT_EQ(flag_first, 2);
  EXPECT_NE(err().str().find("error in log: fit needs a FILE first"), std::string::npos)
      << err().str();
  EXPECT_EQ(help, 0);
  EXPECT_NE(out.str().find("--log FILE  a pasted log (read from FILE"), std::string::npos)
      << out.str();
}
