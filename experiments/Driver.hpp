#pragma once
// What the experiment drivers share (compare-policies, repro-mig-manager, repro-heshare): the command line
// `[--check] [--csv FILE]` and the checks that --check prints, one "ok  "/"FAIL" line each, then PASS/FAIL.
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace colocsim::experiments {

struct DriverArgs {
  bool check = false; ///< run the checks after printing the table
  std::string csv;    ///< write the table here as well (empty: do not)
};

/// Parses `[--check] [--csv FILE]`; anything else prints the usage line and gives nothing (exit status 2).
inline std::optional<DriverArgs> parse_driver_args(int argc, char** argv, const char* program)
{
  DriverArgs args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check") {
      args.check = true;
    } else if (a == "--csv" && i + 1 < argc) {
      args.csv = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--check] [--csv FILE]\n", program);
      return std::nullopt;
    }
  }
  return args;
}

/// The checks of one --check run: each prints its line; exit_status() says whether all held.
class Checks {
public:
  void expect(bool cond, const std::string& what)
  {
    std::printf("%s: %s\n", cond ? "ok  " : "FAIL", what.c_str());
    ok_ = ok_ && cond;
  }
  /// The printed table is the committed `dir`/results.csv, line for line.
  void table_is_committed(const std::string& dir, const std::string& table)
  {
    std::ifstream committed(dir + "/results.csv");
    std::stringstream text;
    text << committed.rdbuf();
    expect(text.str() == table, "the table equals results.csv (rerun with --csv " + dir +
                                    "/results.csv after a deliberate model change)");
  }
  int exit_status() const
  {
    std::printf("check: %s\n", ok_ ? "PASS" : "FAIL");
    return ok_ ? 0 : 1;
  }

private:
  bool ok_ = true;
};

} // namespace colocsim::experiments
