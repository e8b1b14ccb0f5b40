// libFuzzer harness: the device spec loader (load_device_spec) (tests/fuzz/README.md). The bytes are the
// whole YAML file.
#include "models/DeviceSpec.hpp"
#include "tests/fuzz/FuzzCommon.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  fuzz::expect_input_errors([&] { (void)load_device_spec(fuzz::as_text(data, size), "fuzz.yaml"); });
  return 0;
}
