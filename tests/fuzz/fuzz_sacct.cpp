// libFuzzer harness: the Slurm accounting reader (SacctReader, docs/formats/sacct.md) (tests/fuzz/README.md).
// The bytes are the whole file; every job is read, and the warnings are formed.
#include "tests/fuzz/FuzzCommon.hpp"
#include "workloads/SacctReader.hpp"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  fuzz::expect_input_errors([&] {
    std::istringstream in{std::string(fuzz::as_text(data, size))};
    SacctReader reader(in, "fuzz.txt");
    fuzz::drain(reader);
    (void)reader.warnings();
    (void)reader.describe();
  });
  return 0;
}
