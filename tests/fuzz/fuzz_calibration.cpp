// libFuzzer harness: the calibration loader (load_calibration) (tests/fuzz/README.md). The bytes are the
// whole YAML file.
#include "calibration/Calibration.hpp"
#include "tests/fuzz/FuzzCommon.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  fuzz::expect_input_errors([&] { (void)load_calibration(fuzz::as_text(data, size), "fuzz.yaml"); });
  return 0;
}
