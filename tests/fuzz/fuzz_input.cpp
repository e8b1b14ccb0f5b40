// libFuzzer harness for the input readers, one per build: COLOCSIM_FUZZ_<NAME> picks the trace reader (NATIVE,
// SWF, ITP, OPENB, PAI, BATSIM) or the YAML loaders (YAML: load_yaml, device specs, MIG tables, profile
// catalogs). Bad input must end in a located InputError; any other exception, a crash, a sanitizer report, a
// hang (-timeout) or unbounded memory (-rss_limit_mb) is a finding. Built with -DCOLOCSIM_FUZZ=ON
// (tests/fuzz/CMakeLists.txt); run with scripts/fuzz.sh.
#include "models/DeviceSpec.hpp"
#include "models/Mig.hpp"
#include "models/Yaml.hpp"
#include "workloads/BatsimReader.hpp"
#include "workloads/ItpCsvReader.hpp"
#include "workloads/NativeCsv.hpp"
#include "workloads/OpenbReader.hpp"
#include "workloads/PaiReader.hpp"
#include "workloads/ProfileCatalog.hpp"
#include "workloads/SwfReader.hpp"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

namespace {

void drain(colocsim::JobReader& reader)
{
  while (reader.next()) {
  }
}

void fuzz_one(const std::string& text)
{
  using namespace colocsim;
  std::istringstream in(text);
#if defined(COLOCSIM_FUZZ_NATIVE)
  NativeCsvReader r(in, "fuzz.csv");
  drain(r);
#elif defined(COLOCSIM_FUZZ_SWF)
  SwfReader r(in, "fuzz.swf");
  drain(r);
#elif defined(COLOCSIM_FUZZ_ITP)
  ItpCsvReader r(in, "fuzz.csv");
  drain(r);
#elif defined(COLOCSIM_FUZZ_OPENB)
  OpenbPodReader r(in, "fuzz.csv");
  drain(r);
#elif defined(COLOCSIM_FUZZ_PAI)
  PaiReader r(in, "fuzz.csv");
  drain(r);
#elif defined(COLOCSIM_FUZZ_BATSIM)
  BatsimReader r(in, "fuzz.json");
  drain(r);
#elif defined(COLOCSIM_FUZZ_YAML)
  // Every loader, each on its own: a located error from one must not hide a crash in the next.
  auto each = [](auto&& load) {
    try {
      load();
    } catch (const InputError&) {
    }
  };
  each([&] { load_yaml(text, "fuzz.yaml"); });
  each([&] { load_device_spec(text, "fuzz.yaml"); });
  each([&] { load_mig_table(text, "fuzz.yaml"); });
  each([&] { ProfileCatalog::load(text, "fuzz.yaml"); });
#else
#error "define one COLOCSIM_FUZZ_<NAME> (tests/fuzz/CMakeLists.txt)"
#endif
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  try {
    fuzz_one(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const colocsim::InputError&) {
    // A located error is the expected answer to bad input.
  }
  return 0;
}
