// libFuzzer harness: the Microsoft ITP CSV reader (ItpCsvReader) (tests/fuzz/README.md). The bytes are the
// whole file; every job is read.
#include "tests/fuzz/FuzzCommon.hpp"
#include "workloads/ItpCsvReader.hpp"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  fuzz::expect_input_errors([&] {
    std::istringstream in{std::string(fuzz::as_text(data, size))};
    ItpCsvReader reader(in, "fuzz.csv", {{"resnet50", "resnet50-train-bs32"}});
    fuzz::drain(reader);
  });
  return 0;
}
