// Level Zero backend (Intel GPUs), written against the v1.4 headers of Debian 12's libze-dev and kept
// compatible with newer ones (reference §2.1-§2.5):
// - zeInit(ZE_INIT_FLAG_GPU_ONLY); no driver / no GPU → BackendUnavailable (exit status 3).
// - Device "R" or "R.S": root device R (a card in COMPOSITE mode, a tile in FLAT mode), sub-device S.
// - Module from the embedded SPIR-V, immediate command list on the compute queue group (its numQueues =
//   number of CCSs; the queue index selects the CCS), kernel timestamps from an event pool with
//   ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP: global and context ticks, rollover by kernelTimestampValidBits,
//   units by timerResolution (Hz with DEVICE_PROPERTIES_1_2).
// - Parent side (never opens a context): Sysman with ZES_ENABLE_SYSMAN=1 set before zeInit, energy counter
//   of the tile's power domain (onSubdevice/subdeviceId) or of the card, frequency domain of the tile
//   (zesFrequencySetRange min = max pins it; needs root), ZEX_NUMBER_OF_CCS for the workers.
#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>

#include "calibration/microbenchmark/BackendFactories.hpp"
#include "calibration/microbenchmark/DeviceCounters.hpp"

#include <cstdlib>
#include <cstring>
#include <sstream>

namespace colocsim::detail {

namespace {

std::string ze_error_text(ze_result_t r)
{
  switch (r) {
  case ZE_RESULT_ERROR_UNINITIALIZED:
    return "ZE_RESULT_ERROR_UNINITIALIZED";
  case ZE_RESULT_ERROR_DEVICE_LOST:
    return "ZE_RESULT_ERROR_DEVICE_LOST";
  case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY:
    return "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY";
  case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY:
    return "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY";
  case ZE_RESULT_ERROR_MODULE_BUILD_FAILURE:
    return "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE";
  case ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS:
    return "ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS";
  case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE:
    return "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE";
  case ZE_RESULT_ERROR_INVALID_ARGUMENT:
    return "ZE_RESULT_ERROR_INVALID_ARGUMENT";
  case ZE_RESULT_NOT_READY:
    return "ZE_RESULT_NOT_READY";
  default: {
    std::ostringstream os;
    os << "ze_result_t 0x" << std::hex << static_cast<unsigned>(r);
    return os.str();
  }
  }
}

void check(ze_result_t r, const char* what)
{
  if (r != ZE_RESULT_SUCCESS)
    throw std::runtime_error(std::string("Level Zero: ") + what + " failed: " + ze_error_text(r));
}

/// zeInit and the first driver with at least one device; BackendUnavailable when there is none.
ze_driver_handle_t init_driver(bool sysman)
{
  // Sysman through the core handles needs this before zeInit with < 1.5 loaders (reference §2.1).
  if (sysman) setenv("ZES_ENABLE_SYSMAN", "1", 1);
  const ze_result_t r = zeInit(ZE_INIT_FLAG_GPU_ONLY);
  if (r != ZE_RESULT_SUCCESS)
    throw BackendUnavailable("Level Zero: zeInit(ZE_INIT_FLAG_GPU_ONLY) failed with " + ze_error_text(r) +
                             ": no Level Zero GPU driver on this machine (the loader libze1 is installed, a "
                             "driver such as intel-level-zero-gpu is not, or no supported GPU is present)");
  std::uint32_t n = 0;
  if (zeDriverGet(&n, nullptr) != ZE_RESULT_SUCCESS || n == 0)
    throw BackendUnavailable("Level Zero: no driver found");
  std::vector<ze_driver_handle_t> drivers(n);
  check(zeDriverGet(&n, drivers.data()), "zeDriverGet");
  for (auto d : drivers) {
    std::uint32_t count = 0;
    if (zeDeviceGet(d, &count, nullptr) == ZE_RESULT_SUCCESS && count > 0) return d;
  }
  throw BackendUnavailable("Level Zero: drivers found but no GPU device");
}

std::vector<ze_device_handle_t> root_devices(ze_driver_handle_t driver)
{
  std::uint32_t n = 0;
  check(zeDeviceGet(driver, &n, nullptr), "zeDeviceGet");
  std::vector<ze_device_handle_t> d(n);
  check(zeDeviceGet(driver, &n, d.data()), "zeDeviceGet");
  return d;
}

std::vector<ze_device_handle_t> sub_devices(ze_device_handle_t root)
{
  std::uint32_t n = 0;
  if (zeDeviceGetSubDevices(root, &n, nullptr) != ZE_RESULT_SUCCESS || n == 0) return {};
  std::vector<ze_device_handle_t> d(n);
  check(zeDeviceGetSubDevices(root, &n, d.data()), "zeDeviceGetSubDevices");
  return d;
}

ze_device_properties_t properties(ze_device_handle_t d)
{
  ze_device_properties_t p{};
  p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2; // timerResolution in Hz (reference §2.4)
  check(zeDeviceGetProperties(d, &p), "zeDeviceGetProperties");
  return p;
}

struct ComputeGroup {
  std::uint32_t ordinal = 0;
  std::uint32_t queues = 1;
};

ComputeGroup compute_group(ze_device_handle_t d)
{
  std::uint32_t n = 0;
  check(zeDeviceGetCommandQueueGroupProperties(d, &n, nullptr), "zeDeviceGetCommandQueueGroupProperties");
  std::vector<ze_command_queue_group_properties_t> groups(n);
  for (auto& g : groups)
    g.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  check(zeDeviceGetCommandQueueGroupProperties(d, &n, groups.data()),
        "zeDeviceGetCommandQueueGroupProperties");
  for (std::uint32_t i = 0; i < n; ++i)
    if (groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) return {i, groups[i].numQueues};
  throw std::runtime_error("Level Zero: the device has no compute command queue group");
}

struct Selected {
  ze_device_handle_t root = nullptr;
  ze_device_handle_t device = nullptr; ///< root or sub-device that runs the kernels
  DeviceSelector selector;
};

Selected select(ze_driver_handle_t driver, const std::string& text)
{
  const auto sel = parse_device_selector(text.empty() ? "0" : text);
  if (!sel)
    throw std::invalid_argument("Level Zero device '" + text + "' is not R or R.S (root device, sub-device)");
  const auto roots = root_devices(driver);
  if (sel->root >= static_cast<int>(roots.size()))
    throw BackendUnavailable("Level Zero: no root device " + std::to_string(sel->root) + " (found " +
                             std::to_string(roots.size()) +
                             "; indices follow ZE_AFFINITY_MASK and "
                             "ZE_FLAT_DEVICE_HIERARCHY)");
  Selected s{roots[static_cast<std::size_t>(sel->root)], roots[static_cast<std::size_t>(sel->root)], *sel};
  if (sel->sub) {
    const auto subs = sub_devices(s.root);
    if (*sel->sub >= static_cast<int>(subs.size()))
      throw BackendUnavailable("Level Zero: root device " + std::to_string(sel->root) + " has " +
                               std::to_string(subs.size()) + " sub-devices, no " + std::to_string(*sel->sub) +
                               (subs.empty() ? " (FLAT hierarchy: select tiles as root devices, or set "
                                               "ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE)"
                                             : ""));
    s.device = subs[static_cast<std::size_t>(*sel->sub)];
  }
  return s;
}

std::string describe_devices(ze_driver_handle_t driver)
{
  std::ostringstream os;
  const auto roots = root_devices(driver);
  auto line = [&](const std::string& label, ze_device_handle_t d) {
    const auto p = properties(d);
    const auto g = compute_group(d);
    os << label << ": " << p.name << " (" << p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice
       << " EUs, " << p.coreClockRate << " MHz, compute queues " << g.queues << ", timer "
       << p.timerResolution
       << (timer_unit_of(true, static_cast<double>(p.timerResolution)) == TimerUnit::HZ ? " Hz" : " ns/tick")
       << ", timestamp bits " << p.kernelTimestampValidBits << ")\n";
  };
  for (std::size_t r = 0; r < roots.size(); ++r) {
    line(std::to_string(r), roots[r]);
    const auto subs = sub_devices(roots[r]);
    for (std::size_t s = 0; s < subs.size(); ++s)
      line(std::to_string(r) + "." + std::to_string(s), subs[s]);
  }
  return os.str();
}

class LevelZeroRunner final : public KernelRunner {
public:
  explicit LevelZeroRunner(const RunnerOptions& o) : launch_(o.launch)
  {
    const auto spirv = kernel_spirv(launch_.kernel);
    if (spirv.empty())
      throw std::runtime_error(
          "this build has no SPIR-V kernels (llvm-spirv was not found at configure time); "
          "the Level Zero backend needs them");
    driver_ = init_driver(false);
    const auto sel = select(driver_, o.device);
    device_ = sel.device;
    const auto p = properties(device_);
    name_ = p.name;
    valid_bits_ = p.kernelTimestampValidBits == 0 ? 64 : p.kernelTimestampValidBits;
    timer_resolution_ = static_cast<double>(p.timerResolution);
    timer_unit_ = timer_unit_of(true, timer_resolution_);
    const auto group = compute_group(device_);
    queues_ = group.queues;
    queue_index_ = static_cast<std::uint32_t>(o.queue_index) % group.queues;
    requested_queue_ = o.queue_index;

    ze_context_desc_t cd{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
    check(zeContextCreate(driver_, &cd, &context_), "zeContextCreate");
    ze_command_queue_desc_t qd{ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                               nullptr,
                               group.ordinal,
                               queue_index_,
                               0,
                               ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                               ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    check(zeCommandListCreateImmediate(context_, device_, &qd, &list_), "zeCommandListCreateImmediate");

    ze_event_pool_desc_t pd{ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr,
                            ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP | ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
    check(zeEventPoolCreate(context_, &pd, 1, &device_, &pool_), "zeEventPoolCreate");
    ze_event_desc_t ed{ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, 0, ZE_EVENT_SCOPE_FLAG_HOST,
                       ZE_EVENT_SCOPE_FLAG_HOST};
    check(zeEventCreate(pool_, &ed, &event_), "zeEventCreate");

    ze_module_desc_t md{};
    md.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
    md.format = ZE_MODULE_FORMAT_IL_SPIRV;
    md.inputSize = spirv.size();
    md.pInputModule = spirv.data();
    md.pBuildFlags = launch_.bytes > 4e9 ? "-ze-opt-greater-than-4GB-buffer-required" : "";
    ze_module_build_log_handle_t log = nullptr;
    const ze_result_t built = zeModuleCreate(context_, device_, &md, &module_, &log);
    if (built != ZE_RESULT_SUCCESS) {
      std::size_t size = 0;
      std::string text;
      if (log && zeModuleBuildLogGetString(log, &size, nullptr) == ZE_RESULT_SUCCESS && size > 0) {
        text.resize(size);
        zeModuleBuildLogGetString(log, &size, text.data());
      }
      if (log) zeModuleBuildLogDestroy(log);
      throw std::runtime_error("Level Zero: zeModuleCreate(" + launch_.kernel +
                               ") failed: " + ze_error_text(built) + "\n" + text);
    }
    if (log) zeModuleBuildLogDestroy(log);
    ze_kernel_desc_t kd{ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0, launch_.kernel.c_str()};
    check(zeKernelCreate(module_, &kd, &kernel_), "zeKernelCreate");

    const auto global = static_cast<std::uint32_t>(launch_.global_size);
    std::uint32_t gx = 1, gy = 1, gz = 1;
    check(zeKernelSuggestGroupSize(kernel_, global, 1, 1, &gx, &gy, &gz), "zeKernelSuggestGroupSize");
    if (gx == 0 || global % gx != 0) gx = 1;
    check(zeKernelSetGroupSize(kernel_, gx, 1, 1), "zeKernelSetGroupSize");
    groups_ = ze_group_count_t{global / gx, 1, 1};

    for (const auto& spec : launch_.buffers)
      buffers_.push_back(upload(spec));
    for (std::size_t i = 0; i < launch_.args.size(); ++i) {
      const auto& a = launch_.args[i];
      const auto index = static_cast<std::uint32_t>(i);
      switch (a.kind) {
      case ArgKind::BUFFER:
        check(zeKernelSetArgumentValue(kernel_, index, sizeof(void*), &buffers_.at(a.buffer)),
              "zeKernelSetArgumentValue");
        break;
      case ArgKind::INT32: {
        const auto v = static_cast<std::int32_t>(a.value);
        check(zeKernelSetArgumentValue(kernel_, index, sizeof v, &v), "zeKernelSetArgumentValue");
        break;
      }
      case ArgKind::FLOAT: {
        const auto v = static_cast<float>(a.value);
        check(zeKernelSetArgumentValue(kernel_, index, sizeof v, &v), "zeKernelSetArgumentValue");
        break;
      }
      case ArgKind::DOUBLE: {
        const double v = a.value;
        check(zeKernelSetArgumentValue(kernel_, index, sizeof v, &v), "zeKernelSetArgumentValue");
        break;
      }
      }
    }
  }

  ~LevelZeroRunner() override
  {
    for (void* b : buffers_)
      zeMemFree(context_, b);
    if (kernel_) zeKernelDestroy(kernel_);
    if (module_) zeModuleDestroy(module_);
    if (event_) zeEventDestroy(event_);
    if (pool_) zeEventPoolDestroy(pool_);
    if (list_) zeCommandListDestroy(list_);
    if (context_) zeContextDestroy(context_);
  }
  LevelZeroRunner(const LevelZeroRunner&) = delete;
  LevelZeroRunner& operator=(const LevelZeroRunner&) = delete;

  std::string device_name() const override { return name_; }

  std::string notes() const override
  {
    std::string s = "program=spirv;queue=" + std::to_string(queue_index_) + "/" + std::to_string(queues_);
    if (static_cast<std::uint32_t>(requested_queue_) >= queues_)
      s += ";queue-wrapped(asked " + std::to_string(requested_queue_) + ": fewer CCSs than the mode)";
    if (timer_unit_ == TimerUnit::NS_PER_TICK) s += ";timer-ns-per-tick";
    return s;
  }

  LaunchTiming launch() override
  {
    check(zeEventHostReset(event_), "zeEventHostReset");
    check(zeCommandListAppendLaunchKernel(list_, kernel_, &groups_, event_, 0, nullptr),
          "zeCommandListAppendLaunchKernel");
    check(zeEventHostSynchronize(event_, UINT64_MAX), "zeEventHostSynchronize");
    ze_kernel_timestamp_result_t ts{};
    check(zeEventQueryKernelTimestamp(event_, &ts), "zeEventQueryKernelTimestamp");
    LaunchTiming t;
    t.global_s = ticks_to_seconds(elapsed_ticks(ts.global.kernelStart, ts.global.kernelEnd, valid_bits_),
                                  timer_resolution_, timer_unit_);
    t.context_s = ticks_to_seconds(elapsed_ticks(ts.context.kernelStart, ts.context.kernelEnd, valid_bits_),
                                   timer_resolution_, timer_unit_);
    return t;
  }

  std::vector<std::byte> read_buffer(std::size_t index) override
  {
    const auto bytes = launch_.buffers.at(index).bytes;
    void* staging = host_alloc(bytes);
    copy(staging, buffers_.at(index), bytes);
    std::vector<std::byte> out(bytes);
    std::memcpy(out.data(), staging, bytes);
    zeMemFree(context_, staging);
    return out;
  }

private:
  void* host_alloc(std::size_t bytes)
  {
    ze_host_mem_alloc_desc_t hd{ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
    void* p = nullptr;
    check(zeMemAllocHost(context_, &hd, bytes, 64, &p), "zeMemAllocHost");
    return p;
  }

  void copy(void* dst, const void* src, std::size_t bytes)
  {
    check(zeEventHostReset(event_), "zeEventHostReset");
    check(zeCommandListAppendMemoryCopy(list_, dst, src, bytes, event_, 0, nullptr),
          "zeCommandListAppendMemoryCopy");
    check(zeEventHostSynchronize(event_, UINT64_MAX), "zeEventHostSynchronize");
  }

  void* upload(const BufferSpec& spec)
  {
    // Device memory of the selected (sub-)device: per-tile HBM, no implicit scaling (reference §2.3).
    ze_device_mem_alloc_desc_t dd{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
    void* dev = nullptr;
    check(zeMemAllocDevice(context_, &dd, spec.bytes, 64, device_, &dev), "zeMemAllocDevice");
    void* staging = host_alloc(spec.bytes);
    fill_buffer(spec, {static_cast<std::byte*>(staging), spec.bytes});
    copy(dev, staging, spec.bytes);
    zeMemFree(context_, staging);
    return dev;
  }

  KernelLaunch launch_;
  ze_driver_handle_t driver_ = nullptr;
  ze_device_handle_t device_ = nullptr;
  ze_context_handle_t context_ = nullptr;
  ze_command_list_handle_t list_ = nullptr;
  ze_event_pool_handle_t pool_ = nullptr;
  ze_event_handle_t event_ = nullptr;
  ze_module_handle_t module_ = nullptr;
  ze_kernel_handle_t kernel_ = nullptr;
  ze_group_count_t groups_{1, 1, 1};
  std::vector<void*> buffers_;
  std::string name_;
  unsigned valid_bits_ = 64;
  double timer_resolution_ = 1;
  TimerUnit timer_unit_ = TimerUnit::HZ;
  std::uint32_t queues_ = 1, queue_index_ = 0;
  int requested_queue_ = 0;
};

class SysmanEnergyMeter final : public EnergyMeter {
public:
  SysmanEnergyMeter(zes_pwr_handle_t handle, std::string source) : handle_(handle), source_(std::move(source))
  {
  }
  std::string source() const override { return source_; }
  std::optional<EnergySnapshot> read() override
  {
    zes_power_energy_counter_t e{};
    EnergySnapshot s;
    s.host_time_s = monotonic_s();
    if (zesPowerGetEnergyCounter(handle_, &e) != ZE_RESULT_SUCCESS) return std::nullopt;
    s.counters_uj = {e.energy};
    return s;
  }
  std::optional<double> joules_between(const EnergySnapshot& before,
                                       const EnergySnapshot& after) const override
  {
    if (before.counters_uj.size() != 1 || after.counters_uj.size() != 1) return std::nullopt;
    // The counter is specified monotonic (the driver corrects the 32-bit hardware wrap); range unknown.
    const auto d = energy_delta_uj(before.counters_uj[0], after.counters_uj[0], 0);
    if (!d) return std::nullopt;
    return static_cast<double>(*d) * 1e-6;
  }

private:
  zes_pwr_handle_t handle_;
  std::string source_;
};

class LevelZeroHost final : public BackendHost {
public:
  explicit LevelZeroHost(const std::string& device)
  {
    driver_ = init_driver(true);
    const auto sel = select(driver_, device);
    root_ = sel.root;
    selector_ = sel.selector;
    if (sel.selector.sub) subdevice_id_ = properties(sel.device).subdeviceId;
    description_ = describe_devices(driver_);
    find_frequency_domain();
  }

  ~LevelZeroHost() override { restore_frequency(); }
  LevelZeroHost(const LevelZeroHost&) = delete;
  LevelZeroHost& operator=(const LevelZeroHost&) = delete;

  std::string describe() const override { return description_; }

  BackendCapabilities capabilities() const override
  {
    BackendCapabilities c;
    c.modes = {"ccs1", "ccs2", "ccs4"};
    c.frequency_control = frequency_control_;
    c.frequencies_mhz = clocks_mhz_;
    c.frequency_note = frequency_note_;
    return c;
  }

  std::unique_ptr<EnergyMeter> energy_meter(std::string& why_not) override
  {
    const auto sysman = reinterpret_cast<zes_device_handle_t>(root_);
    std::uint32_t n = 0;
    if (zesDeviceEnumPowerDomains(sysman, &n, nullptr) != ZE_RESULT_SUCCESS || n == 0) {
      why_not = "Sysman reports no power domain (is ZES_ENABLE_SYSMAN honoured by this driver?)";
      return nullptr;
    }
    std::vector<zes_pwr_handle_t> domains(n);
    zesDeviceEnumPowerDomains(sysman, &n, domains.data());
    zes_pwr_handle_t card = nullptr;
    for (auto h : domains) {
      zes_power_properties_t p{};
      p.stype = ZES_STRUCTURE_TYPE_POWER_PROPERTIES;
      if (zesPowerGetProperties(h, &p) != ZE_RESULT_SUCCESS) continue;
      if (subdevice_id_ && p.onSubdevice && p.subdeviceId == *subdevice_id_)
        return std::make_unique<SysmanEnergyMeter>(h, "zes:tile" + std::to_string(*subdevice_id_));
      if (!p.onSubdevice && card == nullptr) card = h;
    }
    if (card == nullptr) {
      why_not = "no power domain for the device or its card";
      return nullptr;
    }
    return std::make_unique<SysmanEnergyMeter>(card, "zes:card");
  }

  void set_frequency_mhz(double freq_mhz) override
  {
    if (!frequency_control_) BackendHost::set_frequency_mhz(freq_mhz);
    zes_freq_range_t r{freq_mhz, freq_mhz};
    check(zesFrequencySetRange(freq_, &r), "zesFrequencySetRange");
    changed_ = true;
  }

  void restore_frequency() override
  {
    if (changed_) {
      zesFrequencySetRange(freq_, &original_);
      changed_ = false;
    }
  }

  std::optional<double> actual_frequency_mhz() override
  {
    if (!freq_) return std::nullopt;
    zes_freq_state_t s{};
    s.stype = ZES_STRUCTURE_TYPE_FREQ_STATE;
    if (zesFrequencyGetState(freq_, &s) != ZE_RESULT_SUCCESS || s.actual < 0) return std::nullopt;
    return s.actual;
  }

  std::vector<std::string> worker_environment(const std::string& mode) const override
  {
    // Identical in all co-runners (mixed CCS modes serialise, reference §1.7); indices after
    // ZE_AFFINITY_MASK.
    const auto k = ccs_count(mode);
    if (!k) return {};
    const int root = selector_.root;
    return {"ZEX_NUMBER_OF_CCS=" + ccs_env_value(std::span<const int>(&root, 1), *k)};
  }

  int queue_index(const std::string& mode, int rank) const override
  {
    const auto k = ccs_count(mode);
    return k ? rank % *k : 0;
  }

private:
  void find_frequency_domain()
  {
    const auto sysman = reinterpret_cast<zes_device_handle_t>(root_);
    std::uint32_t n = 0;
    if (zesDeviceEnumFrequencyDomains(sysman, &n, nullptr) != ZE_RESULT_SUCCESS || n == 0) {
      frequency_note_ = "Sysman reports no frequency domain";
      return;
    }
    std::vector<zes_freq_handle_t> domains(n);
    zesDeviceEnumFrequencyDomains(sysman, &n, domains.data());
    zes_freq_properties_t chosen{};
    for (auto h : domains) {
      zes_freq_properties_t p{};
      p.stype = ZES_STRUCTURE_TYPE_FREQ_PROPERTIES;
      if (zesFrequencyGetProperties(h, &p) != ZE_RESULT_SUCCESS || p.type != ZES_FREQ_DOMAIN_GPU) continue;
      const bool match = subdevice_id_ ? (p.onSubdevice && p.subdeviceId == *subdevice_id_) : !p.onSubdevice;
      if (match || freq_ == nullptr) {
        freq_ = h;
        chosen = p;
      }
      if (match) break;
    }
    if (!freq_) {
      frequency_note_ = "no GPU frequency domain";
      return;
    }
    std::uint32_t count = 0;
    if (zesFrequencyGetAvailableClocks(freq_, &count, nullptr) == ZE_RESULT_SUCCESS && count > 0) {
      clocks_mhz_.resize(count);
      zesFrequencyGetAvailableClocks(freq_, &count, clocks_mhz_.data());
    }
    if (!chosen.canControl) {
      frequency_note_ = "the frequency domain reports canControl = false";
      return;
    }
    if (zesFrequencyGetRange(freq_, &original_) != ZE_RESULT_SUCCESS) {
      frequency_note_ = "zesFrequencyGetRange failed";
      return;
    }
    // Setting the current range again is a no-op that tells whether we may change it at all.
    const ze_result_t r = zesFrequencySetRange(freq_, &original_);
    if (r == ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS) {
      frequency_note_ =
          "zesFrequencySetRange needs root (or write access to the driver's sysfs frequency files)";
      return;
    }
    if (r != ZE_RESULT_SUCCESS) {
      frequency_note_ = "zesFrequencySetRange failed: " + ze_error_text(r);
      return;
    }
    frequency_control_ = true;
  }

  ze_driver_handle_t driver_ = nullptr;
  ze_device_handle_t root_ = nullptr;
  DeviceSelector selector_;
  std::optional<std::uint32_t> subdevice_id_;
  std::string description_;
  zes_freq_handle_t freq_ = nullptr;
  zes_freq_range_t original_{-1, -1};
  std::vector<double> clocks_mhz_;
  bool frequency_control_ = false;
  bool changed_ = false;
  std::string frequency_note_;
};

} // namespace

std::unique_ptr<BackendHost> open_level_zero_host(const std::string& device)
{
  return std::make_unique<LevelZeroHost>(device);
}

std::unique_ptr<KernelRunner> open_level_zero_runner(const RunnerOptions& options)
{
  return std::make_unique<LevelZeroRunner>(options);
}

} // namespace colocsim::detail
