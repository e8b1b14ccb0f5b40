// libFuzzer harness: run-summary reading of `colocsim sweep --collect` (docs/sweeps.md,
// tests/fuzz/README.md). A one-run sweep of a copy of the engine tests' base scenario is prepared once with
// --slurm; each input is written as its run-0001/summary.json and the sweep collected. Collecting must end in
// exit status 0 (the run is ok) or 1 (the run failed: its summary.json is not colocsim's) and never throw;
// sweep.csv must say the same; and an ok run's summary.json must at least name every field colocsim's has (a
// `{}`, a scalar or a one-key file is never a finished run).
#include "cli/CliCommands.hpp"
#include "sim/Outputs.hpp"
#include "tests/fuzz/FuzzCommon.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>

namespace {
namespace fs = std::filesystem;

fs::path sweep_dir()
{
  return colocsim::fuzz::temp_dir() / "out";
}

/// The status column of sweep.csv's one run.
std::string collected_status()
{
  std::ifstream in(sweep_dir() / "sweep.csv");
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  const auto a = row.find(','), b = row.find(',', a + 1);
  return a == std::string::npos || b == std::string::npos ? "" : row.substr(a + 1, b - a - 1);
}

std::ostringstream quiet; ///< the collect's messages (a failed run on every other input)
} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
  using namespace colocsim;
  fuzz::copy_sweep_fixtures();
  const fs::path spec = fuzz::temp_dir() / "spec.yaml";
  fuzz::write_file(spec, "name: collect\nscenario: base.yaml\nseeds: [1]\n");
  std::ostringstream out;
  ::setenv("COLOCSIM_EXE", "/bin/false", 1); // --slurm runs nothing; the scripts name it
  (void)cmd_sweep({spec.string(), "--slurm", "-o", sweep_dir().string()}, out);
  fs::create_directories(sweep_dir() / "run-0001");
  std::cerr.rdbuf(quiet.rdbuf());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  const std::string_view bytes = fuzz::as_text(data, size);
  fuzz::write_file(sweep_dir() / "run-0001" / "summary.json", bytes);
  std::ostringstream out;
  quiet.str("");
  const int status = cmd_sweep({"--collect", sweep_dir().string(), "--quiet"}, out);
  const std::string csv_status = collected_status();
  auto finding = [&](const std::string& why) {
    std::fprintf(stderr, "fuzz_sweep_collect: %s (exit status %d, sweep.csv status '%s')\n", why.c_str(),
                 status, csv_status.c_str());
    std::abort();
  };
  if (status != 0 && status != 1) finding("collect ended with neither 0 nor 1");
  if ((status == 0) != (csv_status == "ok") || (status == 1 && csv_status != "failed"))
    finding("the exit status and sweep.csv disagree");
  if (status == 0)
    for (const auto& f : summary_fields())
      if (bytes.find(f.name) == std::string_view::npos)
        finding(std::string("the run is ok but its summary.json does not name ") + f.name);
  return 0;
}
