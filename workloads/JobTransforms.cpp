#include "workloads/JobTransforms.hpp"

#include "base/Units.hpp"
#include "workloads/StableHash.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>

namespace colocsim {

const std::vector<TransformInfo>& transform_infos()
{
  static const std::vector<TransformInfo> infos{
      {"window", "A..B", "keep jobs submitted in [A, B) (e.g. 0..7d, 2h.., ..1d); stops reading at B"},
      {"rebase", "", "shift submit times so that the first job is submitted at 0"},
      {"load", "F", "compress inter-arrival times by F > 0 (2 = twice the arrival rate, same jobs)"},
      {"sample", "P", "keep each job with probability P in (0, 1] (seeded per job id)"},
      {"inflate", "X",
       "clone jobs until they request X times the platform's devices (1.3 or 130%), as in FGD"},
      {"tune", "X",
       "FGD's workload tuning: the jobs, then seeded draws of them with replacement until X times the "
       "platform's devices (or seeded removals down to it); reads the whole trace"},
      {"shuffle", "",
       "a seeded random order of the jobs on the trace's own submit times; reads the whole trace"},
  };
  return infos;
}

namespace {

/// A transform's number as its description shows it: 12 significant digits (number_text() shows 6).
std::string precise_text(double v)
{
  std::ostringstream os;
  os.precision(12);
  os << v;
  return os.str();
}

/// Requested devices of a job (a fractional request counts its share).
double requested(const Job& j)
{
  return j.devices * j.gpu_milli / 1000.0;
}

class Decorator : public JobReader {
public:
  explicit Decorator(std::unique_ptr<JobReader> inner) : inner_(std::move(inner)) {}
  std::vector<std::string> warnings() const override { return inner_->warnings(); }
  bool may_have_dependencies() const override { return inner_->may_have_dependencies(); }
  std::string describe() const override
  {
    const std::string inner = inner_->describe();
    return inner.empty() ? what() : inner + "; " + what();
  }

protected:
  virtual std::string what() const = 0;
  std::unique_ptr<JobReader> inner_;
};

class WindowReader final : public Decorator {
public:
  WindowReader(std::unique_ptr<JobReader> inner, TransformChain::Step s)
      : Decorator(std::move(inner)), s_(std::move(s))
  {
  }
  std::optional<Job> next() override
  {
    while (!done_) {
      auto job = inner_->next();
      if (!job) break;
      if (s_.has_b && job->submit_s >= s_.b) {
        done_ = true; // the trace is in submit order: nothing later can fall inside
        ++after_;
        break;
      }
      if (s_.has_a && job->submit_s < s_.a) {
        ++before_;
        continue;
      }
      ++kept_;
      return job;
    }
    return std::nullopt;
  }

private:
  std::string what() const override
  {
    return "window " + (s_.has_a ? precise_text(s_.a) : std::string()) + ".." +
           (s_.has_b ? precise_text(s_.b) : std::string()) + " s (kept " + std::to_string(kept_) + ", " +
           std::to_string(before_) + " before" + (after_ ? ", stopped at the first job after" : "") + ")";
  }
  TransformChain::Step s_;
  bool done_ = false;
  std::size_t kept_ = 0, before_ = 0, after_ = 0;
};

class RebaseReader final : public Decorator {
public:
  using Decorator::Decorator;
  std::optional<Job> next() override
  {
    auto job = inner_->next();
    if (!job) return job;
    if (!origin_) origin_ = job->submit_s;
    job->submit_s -= *origin_;
    return job;
  }

private:
  std::string what() const override { return "rebase by -" + precise_text(origin_.value_or(0)) + " s"; }
  std::optional<double> origin_;
};

class LoadReader final : public Decorator {
public:
  LoadReader(std::unique_ptr<JobReader> inner, double factor) : Decorator(std::move(inner)), factor_(factor)
  {
  }
  std::optional<Job> next() override
  {
    auto job = inner_->next();
    if (!job) return job;
    if (!t0_) t0_ = job->submit_s;
    job->submit_s = *t0_ + (job->submit_s - *t0_) / factor_;
    return job;
  }

private:
  std::string what() const override
  {
    return "load x" + precise_text(factor_) + " (inter-arrival times / " + precise_text(factor_) + ")";
  }
  double factor_;
  std::optional<double> t0_;
};

class SampleReader final : public Decorator {
public:
  SampleReader(std::unique_ptr<JobReader> inner, double p, std::uint64_t seed)
      : Decorator(std::move(inner)), p_(p), seed_(seed)
  {
  }
  std::optional<Job> next() override
  {
    while (auto job = inner_->next()) {
      if (unit_draw(seed_, "sample", job->id) < p_) {
        ++kept_;
        return job;
      }
      ++dropped_;
    }
    return std::nullopt;
  }

private:
  std::string what() const override
  {
    return "sample p=" + precise_text(p_) + " seed " + std::to_string(seed_) + " (kept " +
           std::to_string(kept_) + ", dropped " + std::to_string(dropped_) + ")";
  }
  double p_;
  std::uint64_t seed_;
  std::size_t kept_ = 0, dropped_ = 0;
};

class InflateReader final : public Decorator {
public:
  InflateReader(const ReaderFactory& make, double target_fraction, double capacity, std::uint64_t seed)
      : Decorator(nullptr), fraction_(target_fraction), capacity_(capacity), seed_(seed)
  {
    // Sizing pass: what the trace requests in total.
    auto sizing = make();
    while (auto job = sizing->next())
      requested_ += requested(*job);
    inner_ = make();
    ratio_ = requested_ > 0 ? fraction_ * capacity_ / requested_ : 1.0;
    if (ratio_ < 1) ratio_ = 1; // inflation never removes jobs (use sample=P for that)
  }
  std::optional<Job> next() override
  {
    if (copies_left_ > 0) {
      --copies_left_;
      Job clone = current_;
      clone.id = current_.id + "#" + std::to_string(++copy_index_);
      emitted_ += requested(clone);
      ++clones_;
      return clone;
    }
    auto job = inner_->next();
    if (!job) return job;
    const double whole = std::floor(ratio_);
    const double extra = unit_draw(seed_, "inflate", job->id) < ratio_ - whole ? 1 : 0;
    copies_left_ = static_cast<long long>(whole + extra) - 1;
    copy_index_ = 1;
    current_ = *job;
    emitted_ += requested(*job);
    return job;
  }
  std::vector<std::string> warnings() const override
  {
    auto w = inner_->warnings();
    if (requested_ >= fraction_ * capacity_)
      w.push_back("inflate=" + precise_text(fraction_) + ": the trace already requests " +
                  precise_text(requested_) + " devices, at least " + precise_text(fraction_) + " x " +
                  precise_text(capacity_) + "; no job was cloned");
    return w;
  }

private:
  std::string what() const override
  {
    return "inflate to " + precise_text(fraction_) + " x " + precise_text(capacity_) +
           " devices (trace requests " + precise_text(requested_) + ", ratio " + precise_text(ratio_) + ", " +
           std::to_string(clones_) + " clones, " + precise_text(emitted_) + " requested)";
  }
  double fraction_, capacity_;
  std::uint64_t seed_;
  double requested_ = 0, ratio_ = 1, emitted_ = 0;
  Job current_;
  long long copies_left_ = 0, copy_index_ = 1;
  std::size_t clones_ = 0;
};

/// Reads the whole inner workload, rearranges it once, then replays it (tune, shuffle): memory grows with the
/// number of jobs, unlike the streaming transforms.
class BufferedReader : public Decorator {
public:
  using Decorator::Decorator;
  std::optional<Job> next() override
  {
    if (!filled_) {
      while (auto job = inner_->next())
        jobs_.push_back(std::move(*job));
      rearrange(jobs_);
      filled_ = true;
    }
    if (next_ == jobs_.size()) return std::nullopt;
    return std::move(jobs_[next_++]);
  }

protected:
  virtual void rearrange(std::vector<Job>& jobs) = 0;

private:
  std::vector<Job> jobs_;
  std::size_t next_ = 0;
  bool filled_ = false;
};

/// A uniform integer in [0, n) from mt19937_64 (specified: the same on every standard library).
std::size_t draw(std::mt19937_64& rng, std::size_t n)
{
  return static_cast<std::size_t>(rng() % n);
}

/// FGD's TunePodsByNodeTotalResource (hkust-adsl/kubernetes-scheduler-simulator, simulator.go): below the
/// target, jobs drawn with replacement from the originals are appended until the next draw's per-device
/// share would pass it (the test adds gpu_milli / 1000, the total devices × gpu_milli / 1000, as there);
/// above it, jobs drawn at random are removed until the total is at most the target. Clones keep the
/// drawn job's submit time and are named `<id>-tuned-<k>`; the result is replayed in submit order.
class TuneReader final : public BufferedReader {
public:
  TuneReader(std::unique_ptr<JobReader> inner, double fraction, double capacity, std::uint64_t seed)
      : BufferedReader(std::move(inner)), fraction_(fraction), capacity_(capacity), seed_(seed)
  {
  }

private:
  void rearrange(std::vector<Job>& jobs) override
  {
    std::mt19937_64 rng(seed_ ^ 0x74756e65ULL); // "tune"
    const double target = fraction_ * capacity_;
    for (const auto& j : jobs)
      total_ += requested(j);
    before_ = jobs.size();
    if (jobs.empty()) return;
    if (total_ > target) {
      while (total_ > target && !jobs.empty()) {
        const std::size_t k = draw(rng, jobs.size());
        total_ -= requested(jobs[k]);
        jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(k));
      }
    } else {
      const std::size_t n = jobs.size();
      for (std::size_t k = 0;; ++k) {
        Job clone = jobs[draw(rng, n)];
        if (total_ + clone.gpu_milli / 1000.0 > target) break;
        total_ += requested(clone);
        clone.id += "-tuned-" + std::to_string(k);
        jobs.push_back(std::move(clone));
      }
    }
    std::stable_sort(jobs.begin(), jobs.end(),
                     [](const Job& a, const Job& b) { return a.submit_s < b.submit_s; });
    after_ = jobs.size();
  }
  std::string what() const override
  {
    return "tune to " + precise_text(fraction_) + " x " + precise_text(capacity_) + " devices (" +
           std::to_string(before_) + " jobs → " + std::to_string(after_) + ", " + precise_text(total_) +
           " requested)";
  }
  double fraction_, capacity_;
  std::uint64_t seed_;
  double total_ = 0;
  std::size_t before_ = 0, after_ = 0;
};

/// A seeded permutation of the jobs; job k of it gets the k-th smallest submit time, so the arrival times
/// stay the trace's and only which job arrives when changes (FGD shuffles its pod list).
class ShuffleReader final : public BufferedReader {
public:
  ShuffleReader(std::unique_ptr<JobReader> inner, std::uint64_t seed)
      : BufferedReader(std::move(inner)), seed_(seed)
  {
  }

private:
  void rearrange(std::vector<Job>& jobs) override
  {
    std::vector<double> times;
    for (const auto& j : jobs)
      times.push_back(j.submit_s);
    std::sort(times.begin(), times.end());
    std::mt19937_64 rng(seed_ ^ 0x73687566ULL); // "shuf"
    for (std::size_t i = jobs.size(); i > 1; --i)
      std::swap(jobs[i - 1], jobs[draw(rng, i)]);
    for (std::size_t i = 0; i < jobs.size(); ++i)
      jobs[i].submit_s = times[i];
    count_ = jobs.size();
  }
  std::string what() const override
  {
    return "shuffle seed " + std::to_string(seed_) + " (" + std::to_string(count_) + " jobs)";
  }
  std::uint64_t seed_;
  std::size_t count_ = 0;
};

std::optional<double> duration(const std::string& text)
{
  return parse_quantity(text, Unit::SECONDS);
}

} // namespace

TransformChain TransformChain::parse(const std::string& text, const SourceLocation& where,
                                     const std::string& path)
{
  TransformChain chain;
  chain.where_ = where;
  chain.path_ = path;
  DiagnosticSink sink;
  std::vector<std::string> names;
  for (const auto& t : transform_infos())
    names.push_back(t.name);
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = std::min(text.find(',', start), text.size());
    std::string item = text.substr(start, end - start);
    start = end + 1;
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    if (b == std::string::npos) continue;
    item = item.substr(b, e - b + 1);
    const auto eq = item.find('=');
    Step s;
    s.name = item.substr(0, eq);
    const std::string value = eq == std::string::npos ? std::string() : item.substr(eq + 1);
    auto bad = [&](const std::string& expected) {
      sink.add(where, path + "." + s.name, "bad value (got '" + value + "'); expected " + expected);
    };
    if (s.name == "window") {
      const auto dots = value.find("..");
      if (dots == std::string::npos) {
        bad("A..B with durations A < B, either may be left out (e.g. 0..7d, 2h..)");
        continue;
      }
      const std::string a = value.substr(0, dots), bb = value.substr(dots + 2);
      bool ok = true;
      if (!a.empty()) {
        if (auto v = duration(a); v && *v >= 0) {
          s.a = *v;
          s.has_a = true;
        } else
          ok = false;
      }
      if (!bb.empty()) {
        if (auto v = duration(bb); v && *v >= 0) {
          s.b = *v;
          s.has_b = true;
        } else
          ok = false;
      }
      if (!ok || (s.has_a && s.has_b && s.b <= s.a)) {
        bad("A..B with durations A < B, " + unit_help(Unit::SECONDS) + ", either may be left out");
        continue;
      }
    } else if (s.name == "rebase") {
      if (!value.empty()) {
        bad("nothing (write just 'rebase')");
        continue;
      }
    } else if (s.name == "load") {
      auto v = parse_double(value);
      if (!v || *v <= 0) {
        bad("a factor > 0 (2 = twice the arrival rate)");
        continue;
      }
      s.a = *v;
    } else if (s.name == "sample") {
      auto v = parse_double(value);
      if (!v || *v <= 0 || *v > 1) {
        bad("a probability in (0, 1]");
        continue;
      }
      s.a = *v;
    } else if (s.name == "shuffle") {
      if (!value.empty()) {
        bad("nothing (write just 'shuffle')");
        continue;
      }
    } else if (s.name == "inflate" || s.name == "tune") {
      std::optional<double> v;
      if (!value.empty() && value.back() == '%') {
        if (auto p = parse_double(value.substr(0, value.size() - 1))) v = *p / 100.0;
      } else {
        v = parse_double(value);
      }
      // At most 100 times the platform: FGD inflates to 1.3; inflate=1e300 cloned without end.
      if (!v || *v <= 0 || *v > 100) {
        bad("a fraction of the platform's devices in (0, 100], e.g. 1.3 or 130%");
        continue;
      }
      s.a = *v;
    } else {
      sink.add(where, path, "unknown transform '" + s.name + "' (got '" + item + "'); valid: " + join(names));
      continue;
    }
    chain.steps_.push_back(s);
  }
  sink.throw_if_any();
  return chain;
}

ReaderFactory TransformChain::apply(ReaderFactory base, const TransformContext& context) const
{
  ReaderFactory make = std::move(base);
  for (const Step& s : steps_) {
    if (s.name == "window")
      make = [make, s] { return std::make_unique<WindowReader>(make(), s); };
    else if (s.name == "rebase")
      make = [make] { return std::make_unique<RebaseReader>(make()); };
    else if (s.name == "load")
      make = [make, f = s.a] { return std::make_unique<LoadReader>(make(), f); };
    else if (s.name == "sample")
      make = [make, p = s.a, seed = context.seed] { return std::make_unique<SampleReader>(make(), p, seed); };
    else if (s.name == "shuffle")
      make = [make, seed = context.seed] { return std::make_unique<ShuffleReader>(make(), seed); };
    else if (s.name == "tune") {
      if (context.capacity_devices <= 0)
        throw InputError(where_, path_ + ".tune", "needs the platform's device count, which is unknown here");
      make = [make, x = s.a, cap = context.capacity_devices, seed = context.seed] {
        return std::make_unique<TuneReader>(make(), x, cap, seed);
      };
    } else if (s.name == "inflate") {
      if (context.capacity_devices <= 0)
        throw InputError(where_, path_ + ".inflate",
                         "needs the platform's device count, which is unknown here");
      make = [make, x = s.a, cap = context.capacity_devices, seed = context.seed] {
        return std::make_unique<InflateReader>(make, x, cap, seed);
      };
    }
  }
  return make;
}

std::string TransformChain::text() const
{
  std::string out;
  for (const Step& s : steps_) {
    if (!out.empty()) out += ',';
    out += s.name;
    if (s.name == "window")
      out += "=" + (s.has_a ? precise_text(s.a) : std::string()) + ".." +
             (s.has_b ? precise_text(s.b) : std::string());
    else if (s.name != "rebase" && s.name != "shuffle")
      out += "=" + precise_text(s.a);
  }
  return out;
}

} // namespace colocsim
