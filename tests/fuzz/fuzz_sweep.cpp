// libFuzzer harness: the sweep spec loader (docs/formats/sweep.md, tests/fuzz/README.md). The loader is
// internal to cli/CliSweep.cpp, so the harness runs `colocsim sweep --dry-run` on the bytes written as
// spec.yaml next to a copy of the engine tests' base scenario (base.yaml and its files): the spec is read,
// the scenario and every axis value checked and the runs expanded; nothing is simulated.
#include "cli/CliCommands.hpp"
#include "tests/fuzz/FuzzCommon.hpp"

#include <sstream>

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
  using namespace colocsim;
  fuzz::copy_sweep_fixtures();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  const auto spec = fuzz::temp_dir() / "spec.yaml";
  fuzz::write_file(spec, fuzz::as_text(data, size));
  std::ostringstream out;
  try {
    fuzz::expect_input_errors([&] {
      (void)cmd_sweep({"--dry-run", "--quiet", "-o", (fuzz::temp_dir() / "out").string(), spec.string()},
                      out);
    });
  } catch (const UsageError&) { // exit status 2, as for InputError
  }
  return 0;
}
