#pragma once
// The packing study of FGD (Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with
// Fragmentation Gradient Descent", USENIX ATC'23, §6): pods arrive one by one on a cluster of nodes (host
// CPU and memory, GPUs of one model), are placed by a node-scoring policy and never leave; a pod that fits
// nowhere is dropped (counted, with the reason), not queued. After each arrival the GPU allocation ratio and
// the fragmentation ratio of the idle GPU capacity are recorded against the arrived workload.
//
// This is a placement-only pass, no time: the engine (sim/Engine.hpp) is not involved, so nothing here
// depends on durations, interference or power. The six policies score NODES as the FGD authors' simulator
// does (hkust-adsl/kubernetes-scheduler-simulator, pkg/simulator/plugin/*_score.go, pkg/utils/frag.go),
// with its integer 0..100 node scores; the highest wins and ties go to the first node of a per-seed random
// node order (the Kubernetes scheduler picks uniformly among the tied nodes at each decision). See
// experiments/repro-fgd-atc23/README.md for each rule and what could not be found.
//
// Units as in the trace: milli-CPU, MiB, milli-GPU (1000 = one GPU).
#include "base/Errors.hpp"
#include "models/Job.hpp"
#include "workloads/NodeInventory.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace colocsim::packing {

inline constexpr int MILLI = 1000;
/// Normalisation constants of the FGD simulator's BestFit, DotProduct and GpuClustering scores (its
/// gpushareutils.MaxSpecCpu/MaxSpecGpu: the largest openb node, 128 vCPU and 8 GPUs).
inline constexpr double MAX_SPEC_CPU = 128000;
inline constexpr double MAX_SPEC_GPU = 8000;
/// The largest cpu_milli (milli-CPU) and memory_mib (MiB) a node or a pod may give: 10^15, a million times
/// the largest machine, so that the whole-number requests and their sums stay far inside a long long.
inline constexpr double MAX_REQUEST = 1e15;
/// The smallest curve step above 0 (Options::curve_step): a million rows per unit of arrived capacity.
inline constexpr double MIN_CURVE_STEP = 1e-6;

struct Node {
  std::string name;
  std::string model; ///< GPU model (empty: no GPU)
  long long cpu = 0, mem = 0;
  long long cpu_left = 0, mem_left = 0;
  std::vector<int> gpu_left;   ///< milli-GPU free on each GPU, in GPU index order
  std::map<int, int> affinity; ///< GPU-affinity tag → pods of it on the node (gpu-clustering)
  int gpu_left_total() const;
  int fully_free() const;
};

struct Pod {
  std::string id;
  long long cpu = 0, mem = 0;
  int gpus = 0;      ///< GPUs requested (0: CPU-only)
  int milli = 0;     ///< per GPU, 1..1000 (0 for a CPU-only pod)
  std::string types; ///< allowed GPU models, '|'-separated; empty = any
  long long total_milli() const { return static_cast<long long>(gpus) * milli; }
};

/// A pod shape of FGD's target workload and its popularity (fractions summing to 1).
struct TypicalPod {
  long long cpu = 0;
  int milli = 0, gpus = 0;
  std::string types;
  double freq = 0;
};

/// How the target workload is drawn from the pods. Defaults: what the authors' experiment scripts pass
/// (scripts/generate_config_and_run.py: --is-involved-cpu-pods true, --pod-popularity-threshold 95,
/// --pod-increase-step 1); the simulator's own defaults when none is given are false, 60 and 10.
struct TypicalOptions {
  bool cpu_pods = true;
  double threshold_pct = 95;
  int step = 1;
};

/// FGD's GetTypicalPods: the pods' shapes (cpu, milli, gpus, types), sorted by count (descending; ties
/// by the shape, descending), taken `step` at a time until they cover >= threshold_pct of the pods, then
/// renormalised.
std::vector<TypicalPod> typical_pods(const std::vector<Pod>& pods, const TypicalOptions& options = {});

/// Whether a node's GPU model is one the pod (or shape) accepts.
bool accessible(const Node& n, const std::string& types);
/// FGD's node fragmentation (NodeGpuShareFragAmountScore): Σ over shapes of freq × the node's idle GPU
/// milli that shape cannot use: all of it for a CPU-only shape, or unless the shape fits the node's GPU
/// type, GPUs and CPU; else the GPUs whose free share is below the shape's request.
double node_fragmentation(const Node& n, const std::vector<TypicalPod>& typical);
/// node_fragmentation for a node state given by its model, CPU left and GPU list.
double fragmentation_of(const std::string& model, long long cpu_left, const std::vector<int>& gpu_left,
                        const std::vector<TypicalPod>& typical);

/// The FGD-study policies, by the names colocsim gives them.
const std::vector<std::string>&
policy_names(); ///< random dot-product gpu-clustering gpu-packing best-fit fgd

struct Options {
  std::string policy = "fgd";
  std::uint64_t seed = 1;
  double tune = 0; ///< > 0: inflate (or deflate) the pods to tune × the cluster's GPU milli (FGD's rule)
  bool shuffle = false; ///< seeded shuffle of the (tuned) pod list
  /// Curve rows: 0 = one per arrival; p > 0 = the first arrival at or past each multiple of p of the
  /// capacity (p = 0.01: one row per percent), plus the last arrival. At most one row per arrival whatever
  /// p (`colocsim pack` takes 0 or MIN_CURVE_STEP..1).
  double curve_step = 0.01;
  TypicalOptions typical;
};

struct CurveRow {
  std::size_t arrivals = 0; ///< pods arrived so far
  double arrived = 0;       ///< requested GPU milli of the arrived pods ÷ GPU capacity
  double allocated = 0;     ///< allocated GPU milli ÷ GPU capacity
  double fragmentation = 0; ///< Σ node fragmentation ÷ Σ idle GPU milli (0 when nothing is idle)
  std::size_t dropped = 0;  ///< pods dropped so far
};

struct Placement {
  long long node = -1;     ///< -1: dropped
  std::vector<int> gpus;   ///< GPU indices on the node
  std::string drop_reason; ///< why no node fits (dropped pods)
};

struct Result {
  std::vector<Pod> pods;             ///< as they arrived (after tune and shuffle)
  std::vector<Placement> placements; ///< one per pod
  std::vector<CurveRow> curve;
  std::map<std::string, std::size_t> drops; ///< reason → pods
  long long capacity_milli = 0;
  long long allocated_milli = 0;
  std::size_t placed = 0, dropped = 0;
  double unallocated_gpus() const { return (capacity_milli - allocated_milli) / double(MILLI); }
  /// The curve's fragmentation at the first row whose arrived share is at least `arrived` (NaN if none).
  double fragmentation_at(double arrived) const;
};

/// FGD's workload tuning (TunePodsByNodeTotalResource): below the target (tune × capacity milli), pods
/// drawn with replacement from the originals are appended until the next draw's per-GPU milli would pass
/// it; above it, pods drawn at random are removed until the total is at most the target.
std::vector<Pod> tune_pods(std::vector<Pod> pods, double tune, long long capacity_milli, std::uint64_t seed);

/// Runs the arrivals. Throws InputError (path "policy") for an unknown policy.
Result run(std::vector<Node> nodes, std::vector<Pod> pods, const Options& options);

/// Nodes of a node table (NodeInventory), pods of jobs read with OpenbOptions::requests_only. A cpu_milli or
/// memory_mib above MAX_REQUEST is an InputError at the node's or job's file:line, naming the field.
std::vector<Node> nodes_from(const NodeInventory& inventory);
Pod pod_from(const Job& job);
std::vector<Pod> load_openb_pods(const std::string& path);

/// The curve as CSV: `arrivals,arrived,allocated,fragmentation,dropped` (ratios with 6 decimals).
std::string curve_csv(const Result& r);

} // namespace colocsim::packing
