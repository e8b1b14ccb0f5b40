// libFuzzer harness: the MIG table loader (load_mig_table) (tests/fuzz/README.md). The bytes are the whole
// YAML file.
#include "models/Mig.hpp"
#include "tests/fuzz/FuzzCommon.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  fuzz::expect_input_errors([&] { (void)load_mig_table(fuzz::as_text(data, size), "fuzz.yaml"); });
  return 0;
}
