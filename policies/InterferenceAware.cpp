#include "policies/InterferenceAware.hpp"

#include <bit>

namespace colocsim {

namespace {

/// a and b equal field by field, bit for bit (so -0.0 differs from 0.0, and a NaN equals itself): a
/// prediction can only depend on what differs.
bool same_bits(const ResourceSignature& a, const ResourceSignature& b)
{
  static_assert(sizeof(ResourceSignature) == 144, "ResourceSignature changed: compare its new fields here");
  static constexpr double ResourceSignature::*REALS[] = {
      &ResourceSignature::duty_cycle,      &ResourceSignature::vec_util,
      &ResourceSignature::xmx_util,        &ResourceSignature::bw_util,
      &ResourceSignature::mem_bytes,       &ResourceSignature::freq_sensitive,
      &ResourceSignature::compute_share,   &ResourceSignature::scaling_serial,
      &ResourceSignature::scaling_exponent};
  const auto bits = [](double x) { return std::bit_cast<std::uint64_t>(x); };
  if (a.job_class != b.job_class) return false;
  for (const auto field : REALS)
    if (bits(a.*field) != bits(b.*field)) return false;
  for (std::size_t g = 0; g < a.mig_speed.size(); ++g)
    if (bits(a.mig_speed[g]) != bits(b.mig_speed[g])) return false;
  return true;
}

} // namespace

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

void InterferenceAware::initialised(const ClusterView& view)
{
  refusals_.assign(view.device_count(), Refusals{});
}

std::size_t InterferenceAware::signature_number(const ResourceSignature& s)
{
  for (std::size_t k = 0; k < signatures_.size(); ++k)
    if (same_bits(signatures_[k], s)) return k;
  if (signatures_.size() == NO_NUMBER) return NO_NUMBER;
  signatures_.push_back(s);
  return signatures_.size() - 1;
}

bool InterferenceAware::accepts(const ClusterView& view, JobIndex j, std::size_t sig, DeviceIndex d,
                                const DeviceView& v)
{
  const auto also = placed_now(d);
  // A prediction for j alone on d is a function of j's signature and of d while d's version stays the same
  // (DeviceView::version; ClusterView::predict), except on a mig device, which the time changes too.
  const bool remember = sig != NO_NUMBER && v.version != 0 && v.mode != SharingMode::MIG && also.empty();
  const std::uint64_t bit = remember ? std::uint64_t{1} << sig : 0;
  if (remember && refusals_[d].version == v.version && (refusals_[d].signatures & bit) != 0) return false;
  const auto p = view.predict(j, std::span<const DeviceIndex>(&d, 1), also);
  const bool ok = p.job_interference <= max_slowdown_ && p.max_corunner_interference <= max_slowdown_ &&
                  (!check_memory_ || p.fits_memory);
  if (remember && !ok) {
    auto& r = refusals_[d];
    if (r.version != v.version) r = Refusals{v.version, 0};
    r.signatures |= bit;
  }
  return ok;
}

std::vector<DeviceIndex> InterferenceAware::choose(const ClusterView& view, JobIndex j, double mem)
{
  GangPicker gang = gang_picker(view, j);
  const std::size_t sig = signature_number(view.signature(j));
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
    const DeviceView v = view.device(dev);
    if (!v.available || !view.allows(j, dev)) continue;
    const bool was_idle = idle(dev);
    const bool ok = accepts(view, j, sig, dev, v);
    if (ok) done = gang.offer(dev, node_of(dev));
    if (!was_idle || !ok) ++examined;
  }
  // The window is spent on devices that refuse: the idle devices further on, through the index of idle
  // devices (O(log D) each), so that a job is never kept from an idle device by busy ones before it.
  for (std::size_t refused = 0; !done && refused < candidates_;) {
    const std::size_t d = next_idle(view, j, mem, from);
    if (d == FitIndex::NONE) break;
    from = d + 1;
    const DeviceIndex dev = static_cast<DeviceIndex>(d);
    if (accepts(view, j, sig, dev, view.device(dev)))
      done = gang.offer(dev, node_of(dev));
    else
      ++refused;
  }
  return gang.take();
}

} // namespace colocsim
