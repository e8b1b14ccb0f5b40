#pragma once
// A Kubernetes pod list as the API server returns it (docs/formats/kubernetes.md): the output of
// `kubectl get pods -A -o json`, a `v1 List` object {"apiVersion": "v1", "items": [Pod, ...], "kind": "List",
// "metadata": {...}} (a `PodList` from /api/v1/pods is read the same way).
//
// Streaming: the `items` array is walked one pod at a time with JsonStream; only the fields the mapping
// needs are kept (metadata.managedFields, env, volumes, ... are skipped), so memory is one pod plus a
// bounded reorder window of jobs (kubectl lists pods by namespace and name, not by creation time).
//
// Mapping (one job per pod): id ← namespace/name; submit ← metadata.creationTimestamp, in seconds after the
// creation of the first pod replayed; start ← the earliest startedAt of the containers' terminated states
// (state and lastState, init containers included), or status.startTime where none has one; end ← the
// latest finishedAt; devices, gpu_milli, mem_request_bytes ← the pod's effective GPU request (Kubernetes'
// rule: the larger of any init container's and the sum of the app containers', limits standing for absent
// requests) of nvidia.com/gpu, nvidia.com/mig-<g>g.<m>gb, gpu.intel.com/i915, HAMi's nvidia.com/gpucores,
// nvidia.com/gpumem and nvidia.com/gpumem-percentage, and gpushare's aliyun.com/gpu-mem; cpus,
// host_mem_bytes ← the effective cpu and memory requests; gpu_types ← nodeSelector nvidia.com/gpu.product;
// requested_s ← spec.activeDeadlineSeconds; user ← namespace; trace_class ← label app.kubernetes.io/name
// or app; qos ← status.qosClass; trace_status ← the phase (completed, failed, out-of-memory, timeout).
// Pending, Running and Unknown pods and pods without a GPU are skipped and counted.
#include "workloads/JobReader.hpp"
#include "workloads/JsonStream.hpp"
#include "workloads/ReorderWindow.hpp"

#include <istream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace colocsim {

struct KubernetesOptions {
  /// Memory of one GPU, bytes, for shares stated only as memory (aliyun.com/gpu-mem, nvidia.com/gpumem
  /// without nvidia.com/gpucores): gpu_milli = round(1000 × memory / this). 0: unknown, such pods hold
  /// whole GPUs (counted in warnings()).
  double gpu_memory_bytes = 0;
  std::size_t reorder_window = DEFAULT_REORDER_WINDOW;
};

/// A time in RFC 3339 (`2024-03-01T10:00:00Z`, `2024-03-01T10:00:00.25+02:00`): whole seconds since 1970
/// (UTC) and the fraction of a second.
struct Rfc3339Time {
  long long seconds = 0;
  double fraction = 0; ///< [0, 1)
  double value() const { return static_cast<double>(seconds) + fraction; }
};

/// Parses an RFC 3339 date-time (section 5.6: date `T` time, optional fraction of up to 9 digits, then `Z`
/// or `±HH:MM`; `t` and `z` in lower case too). Throws InputError at `at`, naming `field`, for anything
/// else, for a date that does not exist, and for a time before 1970 or more than 1e10 s after it.
Rfc3339Time parse_rfc3339(const std::string& text, const SourceLocation& at, const std::string& field);

/// The value of a Kubernetes quantity (`1`, `500m`, `16Gi`, `2k`, `1e3`, `-1`: a signed decimal number
/// with an optional binary (Ki..Ei), decimal (m, k, M..E) or exponent suffix); nullopt if `text` is not
/// one. At most 64 characters.
std::optional<double> parse_k8s_quantity(const std::string& text);

class KubernetesReader final : public JobReader {
public:
  /// Reads up to the `items` array at once; throws InputError if the file is not a List.
  KubernetesReader(std::istream& in, std::string file_name, KubernetesOptions options = {});
  ~KubernetesReader() override;
  std::optional<Job> next() override;
  std::vector<std::string> warnings() const override;
  /// The time that became submit 0 (once a job has been handed out).
  std::string describe() const override;

  struct Pod; ///< what one item holds while it is read (KubernetesReader.cpp)

private:
  bool read_pod();    ///< the next item into the window (or counted); false after the last one
  void finish_list(); ///< the List's members after `items`, and the end of the file
  void check_kind(const std::string& kind, const SourceLocation& at) const;

  std::string file_;
  KubernetesOptions options_;
  JsonStream json_;
  ReorderWindow window_;
  SourceLocation top_; ///< the List object's opening brace
  bool in_items_ = false, saw_kind_ = false;
  long long index_ = -1; ///< index of the item being read
  std::optional<Rfc3339Time> origin_;
  std::map<std::string, std::size_t> unfinished_; ///< by phase
  std::size_t no_gpu_ = 0, not_started_ = 0, no_end_ = 0, zero_runtime_ = 0, mixed_shares_ = 0,
              memory_only_whole_ = 0;
};

std::unique_ptr<JobReader> open_kubernetes(const std::string& path, KubernetesOptions options = {});

} // namespace colocsim
