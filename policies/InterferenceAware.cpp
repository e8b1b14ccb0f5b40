#include "policies/InterferenceAware.hpp"

namespace colocsim {

std::vector<ParamSpec> InterferenceAware::params()
{
  auto specs = slot_params("4");
  specs.push_back(ParamSpec{
      .name = "max_slowdown",
      .type = ParamType::REAL,
      .default_text = "1.5",
      .help = "largest predicted slowdown due to sharing (relative to running alone on the device in its "
              "mode) accepted for the new job or any co-runner",
      .min = 1.0,
      .max = 100.0});
  specs.push_back(
      ParamSpec{.name = "candidates",
                .type = ParamType::INT,
                .default_text = "64",
                .help = "most refusing predictions per decision (shared devices examined in first-fit order, "
                        "idle ones refused for memory); idle devices past them are always found",
                .min = 1,
                .max = 1e6});
  specs.push_back(ParamSpec{.name = "check_memory",
                            .type = ParamType::BOOL,
                            .default_text = "true",
                            .help = "also refuse devices where the predicted real footprints exceed memory",
                            .choices = {}});
  return specs;
}

InterferenceAware::InterferenceAware(const ParamSet& p)
    : SlotPolicy(p), max_slowdown_(p.real("max_slowdown")),
      candidates_(static_cast<std::size_t>(p.integer("candidates"))), check_memory_(p.flag("check_memory"))
{
}

bool InterferenceAware::accepts(const ClusterView& view, JobIndex j, DeviceIndex d) const
{
  const auto p = view.predict(j, std::span<const DeviceIndex>(&d, 1), placed_now(d));
  return p.job_interference <= max_slowdown_ && p.max_corunner_interference <= max_slowdown_ &&
         (!check_memory_ || p.fits_memory);
}

std::vector<DeviceIndex> InterferenceAware::choose(const ClusterView& view, JobIndex j, double mem)
{
  GangPicker gang = gang_picker(view, j);
  bool done = false;
  std::size_t from = 0;
  // First-fit order over the devices with a free slot. `candidates` bounds the predictions that can refuse:
  // shared devices examined and idle devices refused (an empty device is refused only for memory). Devices
  // being repartitioned, on nodes that are off, or of a type the job does not accept are skipped unseen.
  for (std::size_t examined = 0; !done && examined < candidates_;) {
    const std::size_t d = first_fitting(mem, from);
    if (d == FitIndex::NONE) return gang.take();
    from = d + 1;
    const DeviceIndex dev = static_cast<DeviceIndex>(d);
    if (!view.device(dev).available || !view.allows(j, dev)) continue;
    const bool was_idle = idle(dev);
    const bool ok = accepts(view, j, dev);
    if (ok) done = gang.offer(dev, node_of(dev));
    if (!was_idle || !ok) ++examined;
  }
  // The window is spent on devices that refuse: the idle devices further on, through the index of idle
  // devices (O(log D) each), so that a job is never kept from an idle device by busy ones before it.
  for (std::size_t refused = 0; !done && refused < candidates_;) {
    const std::size_t d = next_idle(view, j, mem, from);
    if (d == FitIndex::NONE) break;
    from = d + 1;
    if (accepts(view, j, static_cast<DeviceIndex>(d)))
      done = gang.offer(static_cast<DeviceIndex>(d), node_of(static_cast<DeviceIndex>(d)));
    else
      ++refused;
  }
  return gang.take();
}

} // namespace colocsim
