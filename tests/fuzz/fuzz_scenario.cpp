// libFuzzer harness: the scenario loader (load_scenario, tests/fuzz/README.md). It takes a path, so the bytes
// are written to scenario.yaml in a temporary directory next to the engine tests' fixtures (a seed naming
// them resolves its paths as a real scenario does). Only the loader runs, not build_run: a fuzzed scenario
// could name any file of the machine as its trace.
#include "sim/Scenario.hpp"
#include "tests/fuzz/FuzzCommon.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
  using namespace colocsim;
  for (const char* f :
       {"platform-1x2.yaml", "calibration-test.yaml", "profiles-test.yaml", "pair.csv", "device-test.yaml"})
    fuzz::copy_fixture("sim", f);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  const auto path = fuzz::temp_dir() / "scenario.yaml";
  fuzz::write_file(path, fuzz::as_text(data, size));
  fuzz::expect_input_errors([&] { (void)load_scenario(path.string()); });
  return 0;
}
