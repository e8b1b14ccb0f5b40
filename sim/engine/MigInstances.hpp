#pragma once
// The GPU instances of one device in mig mode (models/Mig.hpp; docs/architecture.md, The engine's
// components): the layout, the job on each instance and when each instance is usable (a created instance
// after the table's reconfiguration latency). The engine keeps one per device (empty outside mig mode) and
// asks it which instances are free and ready, places and removes jobs, and applies ReconfigureMig changes.
#include "models/Mig.hpp"
#include "policies/Policy.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace colocsim {

class MigInstances {
public:
  /// The instances of `layout`, empty and ready.
  void reset(const MigLayout& layout);
  /// No instances (the device leaves mig mode).
  void clear();

  std::size_t size() const { return layout_.size(); }
  const MigLayout& layout() const { return layout_; }
  const MigInstance& operator[](std::size_t i) const { return layout_[i]; }
  /// The job on instance i, or -1.
  std::int64_t job(std::size_t i) const { return job_[i]; }
  /// Sim time instance i is usable from.
  double ready_at(std::size_t i) const { return ready_[i]; }
  bool ready(std::size_t i, double limit) const { return ready_[i] <= limit; }
  void place(std::size_t i, JobIndex j) { job_[i] = j; }
  void vacate(std::size_t i) { job_[i] = -1; }
  /// busy[i]: instance i holds a job (MigGeometry::check_change's argument).
  std::vector<bool> busy() const;
  /// The empty instance ready at `limit` with the most SMs (ties: the lowest index), if any; with `skip` k,
  /// the one after k others in that order (the instance a job gets when k jobs decided before it took the
  /// largest ones: ClusterView::predict's `also`).
  std::optional<std::size_t> largest_free(const MigGeometry& geo, double limit, std::size_t skip = 0) const;
  /// Applies `change` (checked with MigGeometry::check_change) at sim time `now`: kept instances keep their
  /// jobs and readiness and move to the front in their order, created ones follow, empty, ready at now +
  /// the table's reconfiguration latency. Returns, per old instance, its new index (-1: destroyed).
  std::vector<std::int64_t> reconfigure(const MigGeometry& geo, const MigChange& change, double now);

private:
  MigLayout layout_;
  std::vector<std::int64_t> job_;
  std::vector<double> ready_;
};

} // namespace colocsim
