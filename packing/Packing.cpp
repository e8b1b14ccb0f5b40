#include "packing/Packing.hpp"

#include "base/Units.hpp"
#include "models/GpuTypes.hpp"
#include "workloads/OpenbReader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <unordered_map>

namespace colocsim::packing {

int Node::gpu_left_total() const
{
  return std::accumulate(gpu_left.begin(), gpu_left.end(), 0);
}

int Node::fully_free() const
{
  return static_cast<int>(std::count(gpu_left.begin(), gpu_left.end(), MILLI));
}

namespace {

/// The node-scoring rule of a run, resolved once from Options::policy (in policy_names() order).
enum class Scorer { RANDOM, DOT_PRODUCT, GPU_CLUSTERING, GPU_PACKING, BEST_FIT, FGD };

/// Independent streams from one seed (splitmix64), so that tune, shuffle, tie order and the random policy
/// do not share draws.
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream)
{
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// A uniform integer in [0, n) (n > 0) from a specified generator: portable across standard libraries.
std::size_t draw(std::mt19937_64& rng, std::size_t n)
{
  return static_cast<std::size_t>(rng() % n);
}

/// GPU-affinity tag of a pod (gpu-clustering): -1 for CPU-only, 0 for a share of one GPU, else its GPUs.
int affinity_tag(const Pod& p)
{
  if (p.gpus == 0) return -1;
  if (p.gpus == 1 && p.milli < MILLI) return 0;
  return p.gpus;
}

bool type_listed(const std::string& model, const std::string& types)
{
  return types.empty() || gpu_types_list(types, model);
}

/// GPUs with at least `milli` free.
int fitting_gpus(const std::vector<int>& gpu_left, int milli)
{
  return static_cast<int>(std::count_if(gpu_left.begin(), gpu_left.end(), [&](int l) { return l >= milli; }));
}

/// The simulator's NodeResource.Sub: the GPUs with the least free share that fit, in ascending order of
/// free share (stable: lower index first among equals).
std::vector<int> sub_choice(const std::vector<int>& gpu_left, const Pod& p)
{
  std::vector<int> order(gpu_left.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return gpu_left[a] < gpu_left[b]; });
  std::vector<int> chosen;
  for (const int g : order) {
    if (static_cast<int>(chosen.size()) == p.gpus) break;
    if (gpu_left[g] >= p.milli) chosen.push_back(g);
  }
  return chosen;
}

/// AllocateExclusiveGpuId: the lowest-index fully free GPUs.
std::vector<int> exclusive_choice(const std::vector<int>& gpu_left, const Pod& p)
{
  std::vector<int> chosen;
  long long need = p.total_milli();
  for (int g = 0; g < static_cast<int>(gpu_left.size()) && need > 0; ++g)
    if (gpu_left[g] == MILLI) {
      chosen.push_back(g);
      need -= MILLI;
    }
  return chosen;
}

/// The next multiple of `step` past `share` (+ 1e-12), from the current one `next`: step by step, as the
/// curve always did, while that is a few steps; a jump to the multiple when `share` is far ahead (a step
/// tiny against the arrivals: the steps would take as long as share ÷ step additions, and stop adding at
/// all once `next` is 2^53 steps). Strictly greater than share + 1e-12 on return.
double next_row_after(double next, double share, double step)
{
  const double target = share + 1e-12;
  if ((target - next) / step > 64) next = std::floor(target / step) * step;
  for (int k = 0; next <= target && k < 128; ++k)
    next += step;
  return next > target ? next : std::nextafter(target, std::numeric_limits<double>::infinity());
}

long long sigmoid_score(double before, double after)
{
  return static_cast<long long>(1.0 / (1.0 + std::exp(-(before - after) / 1000.0)) * 100.0);
}

struct Scored {
  long long score = std::numeric_limits<long long>::min();
  std::vector<int> gpus;
};

class Runner {
public:
  Runner(std::vector<Node> nodes, const std::vector<Pod>& originals, const Options& o)
      : nodes_(std::move(nodes)), options_(o), typical_(typical_pods(originals, o.typical))
  {
    const auto& names = policy_names();
    const auto named = std::find(names.begin(), names.end(), o.policy);
    if (named == names.end()) {
      std::string all;
      for (const auto& n : names)
        all += (all.empty() ? "" : ", ") + n;
      throw InputError(SourceLocation{"packing options", 0, 0}, "policy",
                       "unknown packing policy '" + o.policy + "'; expected " + all);
    }
    scorer_ = static_cast<Scorer>(named - names.begin());
    for (const auto& n : nodes_) {
      if (!model_id_.count(n.model)) model_id_.emplace(n.model, static_cast<int>(model_id_.size()));
      frag_.push_back(node_fragmentation(n, typical_));
      total_frag_ += frag_.back();
      capacity_ += static_cast<long long>(n.gpu_left.size()) * MILLI;
    }
    order_.resize(nodes_.size());
    std::iota(order_.begin(), order_.end(), std::size_t{0});
    std::mt19937_64 tie(stream_seed(o.seed, 2));
    for (std::size_t i = order_.size(); i > 1; --i)
      std::swap(order_[i - 1], order_[draw(tie, i)]);
    random_.seed(stream_seed(o.seed, 3));
  }

  long long capacity() const { return capacity_; }

  Result run(std::vector<Pod> pods)
  {
    Result r;
    r.capacity_milli = capacity_;
    r.pods = std::move(pods);
    long long arrived = 0;
    double next_row = options_.curve_step;
    for (std::size_t i = 0; i < r.pods.size(); ++i) {
      const Pod& p = r.pods[i];
      arrived += p.total_milli();
      Placement pl = place(p);
      if (pl.node < 0) {
        ++r.dropped;
        ++r.drops[pl.drop_reason];
      } else {
        ++r.placed;
        r.allocated_milli += p.total_milli();
      }
      r.placements.push_back(std::move(pl));
      const double share = capacity_ > 0 ? double(arrived) / double(capacity_) : 0.0;
      const bool last = i + 1 == r.pods.size();
      if (options_.curve_step <= 0 || share >= next_row - 1e-12 || last) {
        const double idle = double(capacity_ - r.allocated_milli);
        r.curve.push_back(CurveRow{i + 1, share,
                                   capacity_ > 0 ? double(r.allocated_milli) / double(capacity_) : 0,
                                   idle > 0 ? total_frag_ / idle : 0.0, r.dropped});
        if (options_.curve_step > 0) next_row = next_row_after(next_row, share, options_.curve_step);
      }
    }
    return r;
  }

private:
  bool host_fits(const Node& n, const Pod& p) const { return n.cpu_left >= p.cpu && n.mem_left >= p.mem; }
  bool gpu_fits(const Node& n, const Pod& p) const
  {
    if (p.gpus == 0) return true;
    return accessible(n, p.types) && fitting_gpus(n.gpu_left, p.milli) >= p.gpus;
  }

  std::string drop_reason(const Pod& p) const
  {
    bool typed = false, typed_host = false, typed_gpu = false;
    for (const auto& n : nodes_) {
      const bool t = p.gpus == 0 || (accessible(n, p.types) && static_cast<int>(n.gpu_left.size()) >= p.gpus);
      if (!t) continue;
      typed = true;
      typed_host = typed_host || host_fits(n, p);
      typed_gpu = typed_gpu || gpu_fits(n, p);
    }
    if (!typed) return "no node has " + std::to_string(p.gpus) + " GPU(s) of type " + p.types;
    if (!typed_host) return "no node has the CPU and memory free";
    if (!typed_gpu) return "no node has the GPU share free";
    return "no node has both the GPU share and the CPU and memory free";
  }

  double frag_after(const Node& n, long long cpu_left, const std::vector<int>& gpu_left)
  {
    std::string key;
    key.reserve(12 + 2 * gpu_left.size());
    const int model = model_id_.at(n.model);
    key.append(reinterpret_cast<const char*>(&model), sizeof model);
    key.append(reinterpret_cast<const char*>(&cpu_left), sizeof cpu_left);
    std::vector<int> sorted = gpu_left;
    std::sort(sorted.begin(), sorted.end());
    for (const int g : sorted) {
      const auto v = static_cast<std::uint16_t>(g);
      key.append(reinterpret_cast<const char*>(&v), sizeof v);
    }
    if (const auto it = memo_.find(key); it != memo_.end()) return it->second;
    if (memo_.size() > 2'000'000) memo_.clear();
    const double f = fragmentation_of(n.model, cpu_left, gpu_left, typical_);
    memo_.emplace(std::move(key), f);
    return f;
  }

  Scored score(std::size_t ni, const Pod& p)
  {
    const Node& n = nodes_[ni];
    Scored s;
    if (scorer_ == Scorer::FGD) {
      const double before = frag_[ni];
      if (p.gpus == 1 && p.milli < MILLI) {
        std::vector<int> left = n.gpu_left;
        for (int g = 0; g < static_cast<int>(left.size()); ++g) {
          if (left[g] < p.milli) continue;
          left[g] -= p.milli;
          const long long v = sigmoid_score(before, frag_after(n, n.cpu_left - p.cpu, left));
          left[g] += p.milli;
          if (s.gpus.empty() || v > s.score) s = Scored{v, {g}};
        }
        return s;
      }
      std::vector<int> left = n.gpu_left;
      for (const int g : sub_choice(left, p))
        left[g] -= p.milli;
      s.score = sigmoid_score(before, frag_after(n, n.cpu_left - p.cpu, left));
      s.gpus = exclusive_choice(n.gpu_left, p);
      if (static_cast<int>(s.gpus.size()) < p.gpus) s.gpus = sub_choice(n.gpu_left, p);
      return s;
    }
    s.gpus = sub_choice(n.gpu_left, p);
    // dot-product: dimension method "merge", normalisation "max", as the authors ran it
    if (scorer_ == Scorer::DOT_PRODUCT) {
      const double dot =
          (double(n.cpu_left) / MAX_SPEC_CPU) * (double(p.cpu) / MAX_SPEC_CPU) +
          (double(n.gpu_left_total()) / MAX_SPEC_GPU) * (double(p.total_milli()) / MAX_SPEC_GPU);
      s.score = static_cast<long long>(100.0 * (1.0 - dot / 2.0));
      return s;
    }
    if (scorer_ == Scorer::BEST_FIT) {
      const double left = 0.5 * double(n.cpu_left - p.cpu) / MAX_SPEC_CPU +
                          0.5 * double(n.gpu_left_total() - p.total_milli()) / MAX_SPEC_GPU;
      s.score = static_cast<long long>((1.0 - left) * 100.0);
    } else if (scorer_ == Scorer::GPU_PACKING) {
      s.score = packing_score(n, p);
    } else if (scorer_ == Scorer::GPU_CLUSTERING) {
      const int tag = affinity_tag(p);
      if (tag < 0) {
        s.score = 0;
      } else {
        const long long fill = 25 * (static_cast<long long>(MAX_SPEC_GPU) - n.gpu_left_total()) /
                               static_cast<long long>(MAX_SPEC_GPU);
        const auto it = n.affinity.find(tag);
        if (it != n.affinity.end() && it->second > 0)
          s.score = fill + (n.affinity.size() == 1 ? 75 : 50);
        else
          s.score = fill + (n.affinity.empty() ? 25 : 0);
      }
    }
    return s;
  }

  static long long packing_score(const Node& n, const Pod& p)
  {
    if (p.milli <= 0) return 0;
    const int free = n.fully_free();
    if (free == static_cast<int>(n.gpu_left.size())) return std::max<long long>(33 - free, free);
    int free_used = 0;
    long long ratio = 0;
    for (const int g : sub_choice(n.gpu_left, p)) {
      if (n.gpu_left[g] == MILLI) ++free_used;
      ratio += static_cast<long long>(n.gpu_left[g]) * 100 / MILLI;
    }
    if (free_used > 0) return std::max<long long>(50 - free_used, 33);
    return std::max<long long>(100 - ratio / 10, 50);
  }

  Placement place(const Pod& p)
  {
    std::vector<std::size_t> feasible;
    for (const std::size_t ni : order_)
      if (host_fits(nodes_[ni], p) && gpu_fits(nodes_[ni], p)) feasible.push_back(ni);
    Placement pl;
    if (feasible.empty()) {
      pl.drop_reason = drop_reason(p);
      return pl;
    }
    std::size_t chosen = feasible.front();
    std::vector<int> gpus;
    if (scorer_ == Scorer::RANDOM) {
      chosen = feasible[draw(random_, feasible.size())];
      if (p.gpus == 1 && p.milli < MILLI) { // a share: a GPU drawn among those that fit
        std::vector<int> fit;
        for (int g = 0; g < static_cast<int>(nodes_[chosen].gpu_left.size()); ++g)
          if (nodes_[chosen].gpu_left[g] >= p.milli) fit.push_back(g);
        gpus.push_back(fit[draw(random_, fit.size())]);
      } else { // whole GPUs: the lowest-index free ones (the simulator's random GPU selection does so)
        gpus = sub_choice(nodes_[chosen].gpu_left, p);
      }
    } else {
      std::vector<Scored> scores;
      scores.reserve(feasible.size());
      for (const std::size_t ni : feasible)
        scores.push_back(score(ni, p));
      if (scorer_ == Scorer::BEST_FIT) { // NormalizeScore: min-max onto 0..100 in integers
        long long lo = std::numeric_limits<long long>::max(), hi = std::numeric_limits<long long>::min();
        for (const auto& s : scores) {
          lo = std::min(lo, s.score);
          hi = std::max(hi, s.score);
        }
        for (auto& s : scores)
          s.score = hi == lo ? 0 : (s.score - lo) * 100 / (hi - lo);
      }
      std::size_t best = 0;
      for (std::size_t k = 1; k < scores.size(); ++k)
        if (scores[k].score > scores[best].score) best = k;
      chosen = feasible[best];
      gpus = scores[best].gpus;
    }
    Node& n = nodes_[chosen];
    n.cpu_left -= p.cpu;
    n.mem_left -= p.mem;
    for (const int g : gpus)
      n.gpu_left[static_cast<std::size_t>(g)] -= p.milli;
    if (const int tag = affinity_tag(p); tag >= 0) ++n.affinity[tag];
    total_frag_ -= frag_[chosen];
    frag_[chosen] = node_fragmentation(n, typical_);
    total_frag_ += frag_[chosen];
    pl.node = static_cast<long long>(chosen);
    pl.gpus = std::move(gpus);
    return pl;
  }

  std::vector<Node> nodes_;
  Options options_;
  Scorer scorer_ = Scorer::FGD;
  std::vector<TypicalPod> typical_;
  std::vector<double> frag_;
  double total_frag_ = 0;
  long long capacity_ = 0;
  std::vector<std::size_t> order_; ///< per-seed random node order: ties go to the first
  std::mt19937_64 random_;
  std::map<std::string, int> model_id_;
  std::unordered_map<std::string, double> memo_; ///< node state → fragmentation
};

} // namespace

bool accessible(const Node& n, const std::string& types)
{
  return type_listed(n.model, types);
}

std::vector<TypicalPod> typical_pods(const std::vector<Pod>& pods, const TypicalOptions& o)
{
  std::map<std::tuple<long long, int, int, std::string>, double> count;
  double total = 0;
  for (const auto& p : pods) {
    if (p.gpus == 0 && !o.cpu_pods) continue;
    count[{p.cpu, p.milli, p.gpus, p.types}] += 1;
    total += 1;
  }
  std::vector<TypicalPod> list;
  for (const auto& [k, c] : count)
    list.push_back(TypicalPod{std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), c});
  // Descending by count, then by the shape (the simulator's sort.Reverse of Less), all fields compared.
  std::sort(list.begin(), list.end(), [](const TypicalPod& a, const TypicalPod& b) {
    return std::tie(a.freq, a.cpu, a.milli, a.gpus, a.types) >
           std::tie(b.freq, b.cpu, b.milli, b.gpus, b.types);
  });
  const double expected = o.threshold_pct * total / 100.0;
  std::size_t i = 0, step_end = 0;
  double cum = 0;
  while (cum < expected && i < list.size()) {
    step_end += static_cast<std::size_t>(std::max(1, o.step));
    for (; i < step_end && i < list.size(); ++i)
      cum += list[i].freq;
  }
  list.resize(i);
  for (auto& t : list)
    t.freq /= cum;
  return list;
}

double fragmentation_of(const std::string& model, long long cpu_left, const std::vector<int>& gpu_left,
                        const std::vector<TypicalPod>& typical)
{
  const int idle = std::accumulate(gpu_left.begin(), gpu_left.end(), 0);
  if (idle == 0) return 0;
  double f = 0;
  for (const auto& t : typical) {
    if (t.gpus == 0) { // a CPU-only shape: every idle GPU is fragment to it (XL, XR)
      f += t.freq * idle;
      continue;
    }
    const bool fits_gpu = type_listed(model, t.types) && fitting_gpus(gpu_left, t.milli) >= t.gpus;
    if (!fits_gpu || cpu_left < t.cpu) { // Q1, Q2, Q4, no access: all idle GPU is fragment
      f += t.freq * idle;
      continue;
    }
    int lacking = 0; // Q3: the GPUs too small for the shape
    for (const int l : gpu_left)
      if (l < t.milli) lacking += l;
    f += t.freq * lacking;
  }
  return f;
}

double node_fragmentation(const Node& n, const std::vector<TypicalPod>& typical)
{
  return fragmentation_of(n.model, n.cpu_left, n.gpu_left, typical);
}

const std::vector<std::string>& policy_names()
{
  // In the order of Scorer.
  static const std::vector<std::string> names{"random",      "dot-product", "gpu-clustering",
                                              "gpu-packing", "best-fit",    "fgd"};
  return names;
}

double Result::fragmentation_at(double arrived) const
{
  for (const auto& row : curve)
    if (row.arrived >= arrived - 1e-12) return row.fragmentation;
  return std::numeric_limits<double>::quiet_NaN();
}

std::vector<Pod> tune_pods(std::vector<Pod> pods, double tune, long long capacity_milli, std::uint64_t seed)
{
  if (tune <= 0 || pods.empty()) return pods;
  std::mt19937_64 rng(stream_seed(seed, 0));
  long long total = 0;
  for (const auto& p : pods)
    total += p.total_milli();
  const double target = tune * double(capacity_milli);
  if (double(total) > target) {
    while (double(total) > target && !pods.empty()) {
      const std::size_t k = draw(rng, pods.size());
      total -= pods[k].total_milli();
      pods.erase(pods.begin() + static_cast<std::ptrdiff_t>(k));
    }
    return pods;
  }
  const std::vector<Pod> originals = pods;
  for (std::size_t i = 0;; ++i) {
    Pod p = originals[draw(rng, originals.size())];
    // As the simulator does: the stop test adds the drawn pod's per-GPU milli, the total its milli × GPUs.
    if (double(total + p.milli) > target) break;
    total += p.total_milli();
    p.id += "-tuned-" + std::to_string(i);
    pods.push_back(std::move(p));
  }
  return pods;
}

Result run(std::vector<Node> nodes, std::vector<Pod> pods, const Options& options)
{
  long long capacity = 0;
  for (const auto& n : nodes)
    capacity += static_cast<long long>(n.gpu_left.size()) * MILLI;
  Runner runner(std::move(nodes), pods, options);
  pods = tune_pods(std::move(pods), options.tune, capacity, options.seed);
  if (options.shuffle) {
    std::mt19937_64 rng(stream_seed(options.seed, 1));
    for (std::size_t i = pods.size(); i > 1; --i)
      std::swap(pods[i - 1], pods[draw(rng, i)]);
  }
  return runner.run(std::move(pods));
}

namespace {
/// A cpu_milli or memory_mib as a whole number; above MAX_REQUEST (or not a number) an InputError at `where`,
/// as std::llround of it would overflow (a pod of 1e19 milli-CPU then fitted every node).
long long whole_request(double v, const SourceLocation& where, const char* field, const char* what)
{
  if (!(v >= 0 && v <= MAX_REQUEST))
    throw InputError(where, field,
                     "out of range (got " + number_text(v) + "); expected " + what + ", 0.." +
                         number_text(MAX_REQUEST));
  return std::llround(v);
}
} // namespace

std::vector<Node> nodes_from(const NodeInventory& inventory)
{
  std::vector<Node> nodes;
  for (const auto& in : inventory.nodes) {
    Node n;
    n.name = in.name;
    n.model = in.gpu_model;
    n.cpu = n.cpu_left = whole_request(in.cpu_cores * 1000.0, in.origin, "cpu_milli", "milli-cores");
    n.mem = n.mem_left =
        whole_request(in.memory_bytes / (1024.0 * 1024.0), in.origin, "memory_mib", "MiB of memory");
    n.gpu_left.assign(static_cast<std::size_t>(in.gpus), MILLI);
    nodes.push_back(std::move(n));
  }
  return nodes;
}

Pod pod_from(const Job& job)
{
  Pod p;
  p.id = job.id;
  p.cpu = whole_request(job.cpus * 1000.0, job.origin, "cpu_milli", "thousandths of a CPU core");
  p.mem =
      whole_request(job.host_mem_bytes / (1024.0 * 1024.0), job.origin, "memory_mib", "MiB of host memory");
  p.gpus = job.devices;
  p.milli = job.devices == 0 ? 0 : job.gpu_milli;
  p.types = job.gpu_types;
  return p;
}

std::vector<Pod> load_openb_pods(const std::string& path)
{
  OpenbOptions o;
  o.requests_only = true;
  auto reader = open_openb(path, o);
  std::vector<Pod> pods;
  while (auto job = reader->next())
    pods.push_back(pod_from(*job));
  return pods;
}

std::string curve_csv(const Result& r)
{
  std::ostringstream os;
  os << "arrivals,arrived,allocated,fragmentation,dropped\n";
  char buf[160];
  for (const auto& row : r.curve) {
    std::snprintf(buf, sizeof buf, "%zu,%.6f,%.6f,%.6f,%zu\n", row.arrivals, row.arrived, row.allocated,
                  row.fragmentation, row.dropped);
    os << buf;
  }
  return os.str();
}

} // namespace colocsim::packing
