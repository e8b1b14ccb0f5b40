// libFuzzer harness: the platform file loader (docs/formats/platform.md, tests/fuzz/README.md). The loader
// is internal to sim/Scenario.cpp, so the harness drives it the way a run does: the bytes become
// platform.yaml next to the engine tests' fixtures, and the fixture scenario that names it is loaded and
// built (build_run: platform, device, calibration, profiles, trace; no simulation).
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"
#include "tests/fuzz/FuzzCommon.hpp"

namespace {
const char* const SCENARIO = R"(name: fuzz-platform
seed: 1
platform:
  preset: platform.yaml
  sharing: time-slice
calibration: calibration-test.yaml
interference: table
workload:
  trace: pair.csv
  profiles: profiles-test.yaml
policy:
  name: first-fit
  params: {max_per_device: 2, memory: none}
)";
}

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
  using namespace colocsim;
  for (const char* f : {"calibration-test.yaml", "profiles-test.yaml", "pair.csv", "device-test.yaml"})
    fuzz::copy_fixture("sim", f);
  fuzz::write_file(fuzz::temp_dir() / "scenario.yaml", SCENARIO);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  fuzz::write_file(fuzz::temp_dir() / "platform.yaml", fuzz::as_text(data, size));
  fuzz::expect_input_errors(
      [&] { (void)build_run(load_scenario((fuzz::temp_dir() / "scenario.yaml").string())); });
  return 0;
}
