// libFuzzer harness: the Batsim JSON workload reader (BatsimReader) (tests/fuzz/README.md). The bytes are the
// whole file; every job is read.
#include "tests/fuzz/FuzzCommon.hpp"
#include "workloads/BatsimReader.hpp"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  fuzz::expect_input_errors([&] {
    std::istringstream in{std::string(fuzz::as_text(data, size))};
    BatsimReader reader(in, "fuzz.json");
    fuzz::drain(reader);
  });
  return 0;
}
