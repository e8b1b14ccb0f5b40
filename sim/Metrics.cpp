#include "sim/Metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace colocsim {

std::vector<double> percentiles(std::vector<double> values, std::span<const double> qs)
{
  std::vector<double> out(qs.size(), 0.0);
  if (values.empty()) return out;
  // The value at each rank, by selection (std::nth_element) rather than a sort: the same values, in linear
  // time; each selection leaves the larger values to its right, so the next, higher rank looks only there.
  auto from = values.begin();
  for (std::size_t i = 0; i < qs.size(); ++i) {
    if (i > 0 && qs[i] < qs[i - 1]) throw std::invalid_argument("percentiles: the quantiles must ascend");
    const auto rank = static_cast<std::size_t>(std::ceil(qs[i] * static_cast<double>(values.size())));
    const auto at =
        values.begin() + static_cast<std::ptrdiff_t>(std::min(values.size() - 1, rank == 0 ? 0 : rank - 1));
    std::nth_element(from, at, values.end());
    out[i] = *at;
    from = at;
  }
  return out;
}

double percentile(std::vector<double> values, double q)
{
  const double qs[] = {q};
  return percentiles(std::move(values), qs).front();
}

void MetricsCollector::add(const JobRecord& r)
{
  if (r.start_s >= 0) wait_.push_back(r.start_s - r.submit_s);
  if (r.job != nullptr && !(r.job->mem_request_bytes > 0)) ++without_memory_;
  if (!r.reason.empty()) ++reasons_[std::string(to_string(r.status)) + ": " + r.reason];
  comm_outputs_ = comm_outputs_ || r.comm_outputs;
  if (r.status != JobStatus::COMPLETED) return;
  if (r.communicated) {
    ++communicating_;
    comm_slowdown_sum_ += r.comm_slowdown;
    if (r.link_contended) ++link_contended_;
  }
  const double jct = r.end_s - r.submit_s;
  jct_.push_back(jct);
  const double run = r.end_s - r.last_start_s;
  bsld_sum_ += std::max(1.0, jct / std::max(run, BOUNDED_SLOWDOWN_TAU_S));
  solo_bsld_sum_ += std::max(1.0, jct / std::max(r.job->duration_s, BOUNDED_SLOWDOWN_TAU_S));
  slowdown_sum_ += r.slowdown;
}

Summary MetricsCollector::summarize(const RunTotals& t, double pue) const
{
  Summary s;
  s.makespan_s = t.t_end_s - t.t_first_submit_s;
  s.energy_gpu_j = t.energy_device_j;
  s.energy_node_j = t.energy_node_j;
  s.pue = pue;
  s.energy_total_j = (t.energy_device_j + t.energy_node_j) * pue;
  s.edp_js = s.energy_total_j * s.makespan_s;
  s.energy_per_completed_job_j = t.completed > 0 ? s.energy_total_j / static_cast<double>(t.completed)
                                                 : std::numeric_limits<double>::quiet_NaN();
  s.jobs_read = t.jobs_read;
  s.jobs_completed = t.completed;
  s.jobs_failed = t.failed;
  s.jobs_rejected = t.rejected;
  s.jobs_never_started = t.never_started;
  s.jobs_cancelled = t.cancelled;
  s.jobs_killed = t.killed;
  s.oom_events = t.oom_events;
  s.jobs_without_declared_memory = without_memory_;
  s.jobs_by_reason = reasons_;
  const auto mean = [](const std::vector<double>& v) {
    return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  s.jct_mean_s = mean(jct_);
  constexpr double JCT_QS[] = {0.50, 0.95, 0.99};
  const auto jct_q = percentiles(jct_, JCT_QS);
  s.jct_p50_s = jct_q[0];
  s.jct_p95_s = jct_q[1];
  s.jct_p99_s = jct_q[2];
  s.wait_mean_s = mean(wait_);
  s.wait_p95_s = percentile(wait_, 0.95);
  if (!jct_.empty()) {
    s.bounded_slowdown_mean = bsld_sum_ / static_cast<double>(jct_.size());
    s.solo_bounded_slowdown_mean = solo_bsld_sum_ / static_cast<double>(jct_.size());
    s.corun_slowdown_mean = slowdown_sum_ / static_cast<double>(jct_.size());
  }
  s.devices = static_cast<std::uint64_t>(t.device_count);
  if (s.makespan_s > 0 && t.device_count > 0) {
    s.utilization = t.busy_device_s / (t.device_count * s.makespan_s);
    s.allocation_mean = t.allocated_device_s / (t.device_count * s.makespan_s);
    s.fragmented_mean = t.fragmented_device_s / (t.device_count * s.makespan_s);
    s.throughput_jobs_per_h = static_cast<double>(t.completed) / (s.makespan_s / 3600.0);
  }
  s.colocation_mean = t.busy_device_s > 0 ? t.resident_s / t.busy_device_s : 0.0;
  s.idle_while_waiting_s = t.idle_while_waiting_device_s;
  s.engine_events = t.engine_events;
  s.rate_updates = t.rate_updates;
  s.comm_outputs = comm_outputs_;
  s.jobs_communicating = communicating_;
  s.jobs_link_contended = link_contended_;
  s.comm_slowdown_mean = communicating_ > 0 ? comm_slowdown_sum_ / static_cast<double>(communicating_)
                                            : std::numeric_limits<double>::quiet_NaN();
  return s;
}

} // namespace colocsim
