#include "policies/FirstFit.hpp"

namespace colocsim {

bool FirstFit::acceptable(const ClusterView& view, JobIndex j, double mem, DeviceIndex d) const
{
  // first_fitting()'s test (a free slot, powered, at least `mem` free), then the scan's own.
  return has_slot(d) && powered(d) && mem_free(d) >= mem && view.device(d).available && view.allows(j, d);
}

void FirstFit::on_device_changed(DeviceIndex d)
{
  if (!waiting_) return;
  const std::uint32_t node = node_of(d);
  if (touched_flag_.size() <= node) touched_flag_.resize(node + std::size_t{1}, 0);
  if (touched_flag_[node]) return;
  touched_flag_[node] = 1;
  touched_.push_back(node);
}

std::vector<DeviceIndex> FirstFit::choose(const ClusterView& view, JobIndex j, double mem)
{
  const auto need = static_cast<std::size_t>(view.job(j).devices);
  if (waiting_ && (waiting_->job != j || waiting_->epoch != availability_epoch())) waiting_.reset();
  if (waiting_) {
    // The same gang, nothing made available since it was counted: only the touched nodes can have
    // different counts. NodeTally::fits on the exact counts is take()'s own answer, so the scan runs only
    // when it places the gang.
    for (const std::uint32_t node : touched_) {
      touched_flag_[node] = 0;
      std::size_t count = 0;
      for (const DeviceIndex d : node_devices(node))
        count += acceptable(view, j, mem, d) ? 1 : 0;
      waiting_->tally.set(node, count);
    }
    touched_.clear();
    if (!waiting_->tally.fits(waiting_->rule, waiting_->need, waiting_->min_nodes)) return {};
    waiting_.reset();
  }
  for (const std::uint32_t node : touched_)
    touched_flag_[node] = 0;
  touched_.clear();
  GangPicker gang = gang_picker_in_device_order(view, j); // first_fitting() ascends
  offered_.clear();
  bool settled = false;
  for (std::size_t from = 0;;) {
    const std::size_t d = first_fitting(mem, from);
    if (d == FitIndex::NONE) break;
    from = d + 1;
    const auto dev = static_cast<DeviceIndex>(d);
    // Repartitioning, its node off, or of a device type the job does not accept.
    if (!view.device(dev).available || !view.allows(j, dev)) continue;
    if (need > 1) offered_.push_back(node_of(dev));
    if (gang.offer(dev, node_of(dev))) {
      settled = true;
      break;
    }
  }
  auto devices = gang.take();
  if (devices.empty() && need > 1 && !settled) {
    // Every acceptable device was offered: keep the per-node counts for the next tries.
    Waiting w{.job = j,
              .need = need,
              .min_nodes = min_nodes(view, j),
              .rule = gang_rule(),
              .epoch = availability_epoch(),
              .tally = {}};
    for (const std::uint32_t node : offered_)
      w.tally.add(node);
    waiting_ = std::move(w);
  }
  return devices;
}

} // namespace colocsim
