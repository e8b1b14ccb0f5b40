// libFuzzer harness: the Standard Workload Format reader (SwfReader) (tests/fuzz/README.md). The bytes are
// the whole file; every job is read.
#include "tests/fuzz/FuzzCommon.hpp"
#include "workloads/SwfReader.hpp"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  fuzz::expect_input_errors([&] {
    std::istringstream in{std::string(fuzz::as_text(data, size))};
    SwfReader reader(in, "fuzz.swf", SwfOptions{});
    fuzz::drain(reader);
  });
  return 0;
}
