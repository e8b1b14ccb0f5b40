// libFuzzer harness: the Kubernetes pod-list reader (KubernetesReader, docs/formats/kubernetes.md)
// (tests/fuzz/README.md). The bytes are the whole file; every job is read, and the warnings are formed.
#include "tests/fuzz/FuzzCommon.hpp"
#include "workloads/KubernetesReader.hpp"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  fuzz::expect_input_errors([&] {
    std::istringstream in{std::string(fuzz::as_text(data, size))};
    // A small window, so that the reorder errors are reachable, and a GPU memory, so that memory-only
    // shares are turned into gpu_milli.
    KubernetesReader reader(in, "fuzz.json", {.gpu_memory_bytes = 16e9, .reorder_window = 4});
    fuzz::drain(reader);
    (void)reader.warnings();
    (void)reader.describe();
  });
  return 0;
}
