// The backend registry: one row per backend, built or not (COLOCSIM_HAVE_LEVEL_ZERO / COLOCSIM_HAVE_OPENCL
// are set by calibration/CMakeLists.txt when the SDK was found).
#include "calibration/microbenchmark/Backend.hpp"

#include "base/Errors.hpp"
#include "calibration/microbenchmark/BackendFactories.hpp"

namespace colocsim {

void BackendHost::set_frequency_mhz(double freq_mhz)
{
  throw std::runtime_error("this backend cannot set the frequency (asked for " + std::to_string(freq_mhz) +
                           " MHz)");
}

std::vector<std::string> BackendHost::worker_environment(const std::string&) const
{
  return {};
}

int BackendHost::queue_index(const std::string&, int) const
{
  return 0;
}

const std::vector<BackendInfo>& backend_registry()
{
  static const std::vector<BackendInfo> registry{
      {"level-zero",
       "Intel GPUs through Level Zero: kernel timestamps, Sysman energy and frequency, CCS modes",
#ifdef COLOCSIM_HAVE_LEVEL_ZERO
       true, "",
#else
       false, "built without Level Zero (libze-dev not found at configure time, or COLOCSIM_LEVEL_ZERO=OFF)",
#endif
       "0", "R or R.S: root device R (a card in COMPOSITE mode, a tile in FLAT mode), sub-device S (tile)",
#ifdef COLOCSIM_HAVE_LEVEL_ZERO
       detail::open_level_zero_host, detail::open_level_zero_runner
#else
       nullptr, nullptr
#endif
      },
      {"opencl", "any OpenCL platform (pocl on CPU, GPUs): event-profiling times, RAPL energy where readable",
#ifdef COLOCSIM_HAVE_OPENCL
       true, "",
#else
       false, "built without OpenCL (ocl-icd-opencl-dev not found at configure time, or COLOCSIM_OPENCL=OFF)",
#endif
       "0.0", "P.D: platform P, device D (clGetPlatformIDs / clGetDeviceIDs order)",
#ifdef COLOCSIM_HAVE_OPENCL
       detail::open_opencl_host, detail::open_opencl_runner
#else
       nullptr, nullptr
#endif
      },
  };
  return registry;
}

const BackendInfo& find_backend(std::string_view name)
{
  std::vector<std::string> names;
  for (const auto& b : backend_registry()) {
    if (b.name == name) return b;
    names.push_back(b.name);
  }
  throw std::invalid_argument("unknown backend '" + std::string(name) + "'; valid: " + join(names));
}

} // namespace colocsim
