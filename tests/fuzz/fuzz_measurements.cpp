// libFuzzer harness: the calibration measurements CSV reader (read_measurements, tests/fuzz/README.md).
#include "calibration/microbenchmark/Measurements.hpp"
#include "tests/fuzz/FuzzCommon.hpp"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  fuzz::expect_input_errors([&] {
    std::istringstream in{std::string(fuzz::as_text(data, size))};
    (void)read_measurements(in, "fuzz.csv");
  });
  return 0;
}
