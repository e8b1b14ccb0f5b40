#pragma once
// The two sides of a microbenchmark backend (Level Zero, OpenCL), one registry table naming both.
//
// - KernelRunner: lives in a worker process (one per co-runner, `colocsim calibrate worker`); owns one
//   context on one device, the buffers and the compiled kernel of one KernelLaunch, and launches it once
//   per call, returning the device's timestamps for that launch.
// - BackendHost: lives in the parent process that plans and times the runs; it never opens a context
//   (so idle windows really are idle), and gives what only the parent needs: the device description, the
//   sharing modes and frequencies it can set, an energy meter, and each worker's environment (e.g.
//   ZEX_NUMBER_OF_CCS, which must be identical for all co-runners of a Level Zero CCS mode).
//
// A backend that cannot run on this machine (no driver, no platform, no device) throws BackendUnavailable;
// `colocsim calibrate run` turns it into exit status 3. A backend left out of this build (its SDK was not
// found at configure time) is listed with built == false: exit status 4.
#include "calibration/microbenchmark/EnergyMeter.hpp"
#include "calibration/microbenchmark/Kernels.hpp"

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace colocsim {

/// Exit status of `colocsim calibrate` when the backend has no driver/platform/device on this machine.
inline constexpr int EXIT_BACKEND_UNAVAILABLE = 3;
/// Exit status of `colocsim calibrate` when the backend was not compiled into this binary.
inline constexpr int EXIT_BACKEND_NOT_BUILT = 4;

struct BackendUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Device time of one launch, seconds. context_s is NaN where the API has no per-context time (OpenCL).
struct LaunchTiming {
  double global_s = std::numeric_limits<double>::quiet_NaN();
  double context_s = std::numeric_limits<double>::quiet_NaN();
};

struct RunnerOptions {
  std::string device; ///< backend's device selector text ("" = its default)
  KernelLaunch launch;
  int queue_index = 0; ///< Level Zero: index in the compute queue group (the CCS), modulo numQueues
};

class KernelRunner {
public:
  virtual ~KernelRunner() = default;
  virtual std::string device_name() const = 0;
  /// Facts worth keeping with the measurement, ';'-separated, e.g. "program=source" or "queue=1/4".
  virtual std::string notes() const = 0;
  /// Launches the kernel once and waits for it to finish.
  virtual LaunchTiming launch() = 0;
  /// Copies buffer `index` of the launch back to the host (tests check the kernels' results).
  virtual std::vector<std::byte> read_buffer(std::size_t index) = 0;
};

struct BackendCapabilities {
  std::vector<std::string> modes;      ///< sharing modes it can set up; the first is the reference mode
  bool frequency_control = false;      ///< frequency can be pinned (min = max)
  std::vector<double> frequencies_mhz; ///< available frequency steps (empty when unknown)
  std::string frequency_note;          ///< why frequency control is off, when it is
  bool cpu_device = false;             ///< the device is the host's CPU (pocl): workers get pinned
};

class BackendHost {
public:
  virtual ~BackendHost() = default;
  /// Devices found, one per line (`colocsim calibrate run --probe`).
  virtual std::string describe() const = 0;
  virtual BackendCapabilities capabilities() const = 0;
  /// The device's energy meter, or nullptr with the reason in why_not.
  virtual std::unique_ptr<EnergyMeter> energy_meter(std::string& why_not) = 0;
  /// Pins the frequency (only when capabilities().frequency_control). Throws std::runtime_error on failure.
  virtual void set_frequency_mhz(double freq_mhz);
  /// Puts back the frequency range found at start (no-op when never changed).
  virtual void restore_frequency() {}
  /// Frequency the device runs at now, when the backend can read it.
  virtual std::optional<double> actual_frequency_mhz() { return std::nullopt; }
  /// Extra "NAME=value" environment entries for every worker of a run in `mode`.
  virtual std::vector<std::string> worker_environment(const std::string& mode) const;
  /// Queue index of the worker with this rank in a run in `mode`.
  virtual int queue_index(const std::string& mode, int rank) const;
};

struct BackendInfo {
  std::string name; ///< as given to --backend
  std::string description;
  bool built = false;    ///< compiled into this binary
  std::string not_built; ///< why not, when !built
  std::string default_device;
  std::string device_help; ///< how to write --device for this backend
  std::function<std::unique_ptr<BackendHost>(const std::string& device)> open_host;
  std::function<std::unique_ptr<KernelRunner>(const RunnerOptions& options)> open_runner;
};

/// Every backend, built or not, in a fixed order (level-zero, opencl).
const std::vector<BackendInfo>& backend_registry();

/// The backend named `name`; throws std::invalid_argument "unknown backend 'x'; valid: ..." otherwise.
const BackendInfo& find_backend(std::string_view name);

} // namespace colocsim
