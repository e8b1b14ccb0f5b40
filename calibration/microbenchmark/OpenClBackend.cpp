// OpenCL backend: any platform (pocl on CPU here, GPU platforms elsewhere), the same kernels and plans as
// Level Zero. Program source: the embedded SPIR-V through clCreateProgramWithIL when the device reports a
// SPIR-V IL version (CL_DEVICE_IL_VERSION, OpenCL >= 2.1), otherwise the embedded OpenCL C source
// (pocl 3.1 as packaged by Debian 12 reports no IL version, so it builds from source). Times come from
// event profiling (CL_PROFILING_COMMAND_START/END, ns); OpenCL has no per-context time, so context_s is
// NaN. Energy: RAPL package counters when the device is a CPU and powercap is readable.
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include "calibration/microbenchmark/BackendFactories.hpp"
#include "calibration/microbenchmark/DeviceCounters.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace colocsim::detail {

namespace {

std::string cl_error_text(cl_int e)
{
  switch (e) {
  case CL_DEVICE_NOT_FOUND:
    return "CL_DEVICE_NOT_FOUND";
  case CL_OUT_OF_RESOURCES:
    return "CL_OUT_OF_RESOURCES";
  case CL_OUT_OF_HOST_MEMORY:
    return "CL_OUT_OF_HOST_MEMORY";
  case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
  case CL_BUILD_PROGRAM_FAILURE:
    return "CL_BUILD_PROGRAM_FAILURE";
  case CL_INVALID_VALUE:
    return "CL_INVALID_VALUE";
  case CL_INVALID_BUFFER_SIZE:
    return "CL_INVALID_BUFFER_SIZE";
  case CL_INVALID_KERNEL_NAME:
    return "CL_INVALID_KERNEL_NAME";
  case CL_INVALID_ARG_SIZE:
    return "CL_INVALID_ARG_SIZE";
  case CL_INVALID_WORK_GROUP_SIZE:
    return "CL_INVALID_WORK_GROUP_SIZE";
  case CL_INVALID_OPERATION:
    return "CL_INVALID_OPERATION";
  case -1001:
    return "CL_PLATFORM_NOT_FOUND_KHR";
  default:
    return "OpenCL error " + std::to_string(e);
  }
}

void check(cl_int e, const char* what)
{
  if (e != CL_SUCCESS)
    throw std::runtime_error(std::string("OpenCL: ") + what + " failed: " + cl_error_text(e));
}

std::string platform_text(cl_platform_id p, cl_platform_info what)
{
  std::size_t size = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string s(size, '\0');
  clGetPlatformInfo(p, what, size, s.data(), nullptr);
  s.resize(std::strlen(s.c_str()));
  return s;
}

std::string device_text(cl_device_id d, cl_device_info what)
{
  std::size_t size = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string s(size, '\0');
  clGetDeviceInfo(d, what, size, s.data(), nullptr);
  s.resize(std::strlen(s.c_str()));
  return s;
}

std::vector<cl_platform_id> platforms()
{
  cl_uint n = 0;
  const cl_int e = clGetPlatformIDs(0, nullptr, &n);
  if (e == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (e == CL_SUCCESS && n == 0))
    throw BackendUnavailable(
        "OpenCL: no platform found (the ICD loader found no driver in /etc/OpenCL/vendors; "
        "install one, e.g. pocl-opencl-icd for CPUs)");
  check(e, "clGetPlatformIDs");
  std::vector<cl_platform_id> ids(n);
  check(clGetPlatformIDs(n, ids.data(), nullptr), "clGetPlatformIDs");
  return ids;
}

std::vector<cl_device_id> devices(cl_platform_id p)
{
  cl_uint n = 0;
  const cl_int e = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n);
  if (e == CL_DEVICE_NOT_FOUND || n == 0) return {};
  check(e, "clGetDeviceIDs");
  std::vector<cl_device_id> ids(n);
  check(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr), "clGetDeviceIDs");
  return ids;
}

std::string describe_all()
{
  std::ostringstream os;
  const auto ps = platforms();
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const auto ds = devices(ps[i]);
    for (std::size_t j = 0; j < ds.size(); ++j)
      os << i << "." << j << ": " << device_text(ds[j], CL_DEVICE_NAME) << " ("
         << platform_text(ps[i], CL_PLATFORM_NAME) << ", " << device_text(ds[j], CL_DEVICE_VERSION) << ")\n";
    if (ds.empty()) os << i << ": " << platform_text(ps[i], CL_PLATFORM_NAME) << " (no device)\n";
  }
  return os.str();
}

cl_device_id select_device(const std::string& text)
{
  const auto sel = parse_device_selector(text.empty() ? "0.0" : text);
  if (!sel)
    throw std::invalid_argument("OpenCL device '" + text +
                                "' is not P.D (platform and device index, e.g. 0.0)");
  const auto ps = platforms();
  const int dev = sel->sub.value_or(0);
  if (sel->root < static_cast<int>(ps.size())) {
    const auto ds = devices(ps[static_cast<std::size_t>(sel->root)]);
    if (dev < static_cast<int>(ds.size())) return ds[static_cast<std::size_t>(dev)];
  }
  throw BackendUnavailable("OpenCL: no device " + sel->to_string() + "; found:\n" + describe_all());
}

bool is_cpu(cl_device_id d)
{
  cl_device_type type = 0;
  clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
  return (type & CL_DEVICE_TYPE_CPU) != 0;
}

/// "OpenCL 3.0 PoCL ..." → 30
int device_version(cl_device_id d)
{
  const auto v = device_text(d, CL_DEVICE_VERSION);
  int major = 1, minor = 2;
  std::sscanf(v.c_str(), "OpenCL %d.%d", &major, &minor);
  return major * 10 + minor;
}

class OpenClRunner final : public KernelRunner {
public:
  explicit OpenClRunner(const RunnerOptions& o) : launch_(o.launch)
  {
    device_ = select_device(o.device);
    name_ = device_text(device_, CL_DEVICE_NAME);
    if (launch_.fp64 && device_text(device_, CL_DEVICE_EXTENSIONS).find("cl_khr_fp64") == std::string::npos)
      throw std::runtime_error("OpenCL device '" + name_ + "' has no cl_khr_fp64; kernel " + launch_.kernel +
                               " needs it");
    cl_int e = CL_SUCCESS;
    context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &e);
    check(e, "clCreateContext");
    if (device_version(device_) >= 20) {
      const cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
      queue_ = clCreateCommandQueueWithProperties(context_, device_, props, &e);
    } else {
      queue_ = clCreateCommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE, &e);
    }
    check(e, "creating a profiling command queue");
    build_program();
    kernel_ = clCreateKernel(program_, launch_.kernel.c_str(), &e);
    check(e, "clCreateKernel");
    for (const auto& spec : launch_.buffers) {
      std::vector<std::byte> host(spec.bytes);
      fill_buffer(spec, host);
      buffers_.push_back(
          clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, spec.bytes, host.data(), &e));
      check(e, "clCreateBuffer");
    }
    for (std::size_t i = 0; i < launch_.args.size(); ++i) {
      const auto& a = launch_.args[i];
      const auto index = static_cast<cl_uint>(i);
      switch (a.kind) {
      case ArgKind::BUFFER:
        check(clSetKernelArg(kernel_, index, sizeof(cl_mem), &buffers_.at(a.buffer)), "clSetKernelArg");
        break;
      case ArgKind::INT32: {
        const auto v = static_cast<cl_int>(a.value);
        check(clSetKernelArg(kernel_, index, sizeof v, &v), "clSetKernelArg");
        break;
      }
      case ArgKind::FLOAT: {
        const auto v = static_cast<cl_float>(a.value);
        check(clSetKernelArg(kernel_, index, sizeof v, &v), "clSetKernelArg");
        break;
      }
      case ArgKind::DOUBLE: {
        const cl_double v = a.value;
        check(clSetKernelArg(kernel_, index, sizeof v, &v), "clSetKernelArg");
        break;
      }
      }
    }
  }

  ~OpenClRunner() override
  {
    for (auto b : buffers_)
      clReleaseMemObject(b);
    if (kernel_) clReleaseKernel(kernel_);
    if (program_) clReleaseProgram(program_);
    if (queue_) clReleaseCommandQueue(queue_);
    if (context_) clReleaseContext(context_);
  }
  OpenClRunner(const OpenClRunner&) = delete;
  OpenClRunner& operator=(const OpenClRunner&) = delete;

  std::string device_name() const override { return name_; }
  std::string notes() const override { return "program=" + program_from_; }

  LaunchTiming launch() override
  {
    cl_event ev = nullptr;
    const std::size_t global = launch_.global_size;
    check(clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global, nullptr, 0, nullptr, &ev),
          "clEnqueueNDRangeKernel");
    const cl_int waited = clWaitForEvents(1, &ev);
    cl_ulong start = 0, end = 0;
    cl_int e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr);
    if (e == CL_SUCCESS) e = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr);
    clReleaseEvent(ev);
    check(waited, "clWaitForEvents");
    check(e, "clGetEventProfilingInfo");
    LaunchTiming t;
    t.global_s = end >= start ? static_cast<double>(end - start) * 1e-9 : 0.0;
    return t;
  }

  std::vector<std::byte> read_buffer(std::size_t index) override
  {
    std::vector<std::byte> host(launch_.buffers.at(index).bytes);
    check(clEnqueueReadBuffer(queue_, buffers_.at(index), CL_TRUE, 0, host.size(), host.data(), 0, nullptr,
                              nullptr),
          "clEnqueueReadBuffer");
    return host;
  }

private:
  void build_program()
  {
    cl_int e = CL_SUCCESS;
    const auto spirv = kernel_spirv(launch_.kernel);
    const bool il = device_version(device_) >= 21 &&
                    device_text(device_, CL_DEVICE_IL_VERSION).find("SPIR-V") != std::string::npos;
    if (il && !spirv.empty()) {
      program_ = clCreateProgramWithIL(context_, spirv.data(), spirv.size(), &e);
      program_from_ = "spirv";
    } else {
      const auto src = kernel_source(launch_.kernel);
      const char* text = src.data();
      const std::size_t length = src.size();
      program_ = clCreateProgramWithSource(context_, 1, &text, &length, &e);
      program_from_ = "source";
    }
    check(e, "creating the program");
    e = clBuildProgram(program_, 1, &device_, "", nullptr, nullptr);
    if (e != CL_SUCCESS) {
      std::size_t size = 0;
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      throw std::runtime_error("OpenCL: building " + launch_.kernel + " (from " + program_from_ +
                               ") failed: " + cl_error_text(e) + "\n" + log);
    }
  }

  KernelLaunch launch_;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  cl_kernel kernel_ = nullptr;
  std::vector<cl_mem> buffers_;
  std::string name_;
  std::string program_from_;
};

class OpenClHost final : public BackendHost {
public:
  explicit OpenClHost(const std::string& device)
      : device_(select_device(device)), description_(describe_all())
  {
  }

  std::string describe() const override { return description_; }

  BackendCapabilities capabilities() const override
  {
    BackendCapabilities c;
    c.modes = {"time-slice"};
    c.frequency_note = "the OpenCL backend does not pin frequencies (Level Zero only)";
    c.cpu_device = is_cpu(device_);
    return c;
  }

  std::unique_ptr<EnergyMeter> energy_meter(std::string& why_not) override
  {
    if (!is_cpu(device_)) {
      why_not = "RAPL measures CPU packages, and the OpenCL device is not a CPU";
      return nullptr;
    }
    return open_rapl_meter("/sys/class/powercap", why_not);
  }

  std::optional<double> actual_frequency_mhz() override
  {
    // Mean current clock of the CPUs, where cpufreq exposes it (kHz); CPUs only.
    if (!is_cpu(device_)) return std::nullopt;
    namespace fs = std::filesystem;
    std::error_code ec;
    double sum_khz = 0;
    int count = 0;
    for (const auto& e : fs::directory_iterator("/sys/devices/system/cpu", ec)) {
      std::ifstream in(e.path() / "cpufreq" / "scaling_cur_freq");
      double khz = 0;
      if (in >> khz && khz > 0) {
        sum_khz += khz;
        ++count;
      }
    }
    if (count == 0) return std::nullopt;
    return sum_khz / count / 1000.0;
  }

private:
  cl_device_id device_;
  std::string description_;
};

} // namespace

std::unique_ptr<BackendHost> open_opencl_host(const std::string& device)
{
  return std::make_unique<OpenClHost>(device);
}

std::unique_ptr<KernelRunner> open_opencl_runner(const RunnerOptions& options)
{
  return std::make_unique<OpenClRunner>(options);
}

} // namespace colocsim::detail
