// libFuzzer harness: the pair table loader (load_pair_table) (tests/fuzz/README.md). The bytes are the whole
// YAML file.
#include "calibration/PairTable.hpp"
#include "tests/fuzz/FuzzCommon.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  fuzz::expect_input_errors([&] { (void)load_pair_table(fuzz::as_text(data, size), "fuzz.yaml"); });
  return 0;
}
