#pragma once
// Factories of the backends compiled into this build (Backend.cpp's registry calls them). Each is defined
// in its backend's source file, which CMake compiles only when the backend's SDK was found.
#include "calibration/microbenchmark/Backend.hpp"

namespace colocsim::detail {

std::unique_ptr<BackendHost> open_level_zero_host(const std::string& device);
std::unique_ptr<KernelRunner> open_level_zero_runner(const RunnerOptions& options);

std::unique_ptr<BackendHost> open_opencl_host(const std::string& device);
std::unique_ptr<KernelRunner> open_opencl_runner(const RunnerOptions& options);

} // namespace colocsim::detail
