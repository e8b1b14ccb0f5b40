// libFuzzer harness: the Alibaba openb pod reader (OpenbPodReader) (tests/fuzz/README.md). The bytes are the
// whole file; every job is read.
#include "tests/fuzz/FuzzCommon.hpp"
#include "workloads/OpenbReader.hpp"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  fuzz::expect_input_errors([&] {
    std::istringstream in{std::string(fuzz::as_text(data, size))};
    OpenbPodReader reader(in, "fuzz.csv");
    fuzz::drain(reader);
  });
  return 0;
}
