// libFuzzer harness: the profile catalog loader (ProfileCatalog::load) (tests/fuzz/README.md). The bytes are
// the whole YAML file.
#include "tests/fuzz/FuzzCommon.hpp"
#include "workloads/ProfileCatalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  fuzz::expect_input_errors([&] { (void)ProfileCatalog::load(fuzz::as_text(data, size), "fuzz.yaml"); });
  return 0;
}
