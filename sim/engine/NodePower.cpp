#include "sim/engine/NodePower.hpp"

namespace colocsim {

NodePower::NodePower(std::size_t node_count, const std::vector<double>& baseline_w)
    : state_(node_count, State::ON), node_w_(node_count, 0.0),
      powered_(static_cast<std::uint32_t>(node_count))
{
  for (std::size_t n = 0; n < node_count; ++n) {
    node_w_[n] = n < baseline_w.size() ? baseline_w[n] : 0.0;
    baseline_w_ += node_w_[n];
  }
}

void NodePower::integrate(double now)
{
  if (now > energy_t_) {
    energy_j_ += baseline_w_ * (now - energy_t_);
    energy_t_ = now;
  }
}

void NodePower::power_on(std::uint32_t node, double now, double boot_s)
{
  state_[node] = State::BOOTING; // draws its baseline and idle power while it boots
  ++powered_;
  baseline_w_ += node_w_[node];
  boots_.insert({now + boot_s, node});
}

void NodePower::power_off(std::uint32_t node)
{
  state_[node] = State::OFF;
  powered_off_.push_back(node);
  --powered_;
  baseline_w_ -= node_w_[node];
}

std::optional<std::uint32_t> NodePower::finish_boot(double limit)
{
  if (boots_.empty() || boots_.begin()->first > limit) return std::nullopt;
  const auto node = boots_.begin()->second;
  boots_.erase(boots_.begin());
  state_[node] = State::ON;
  return node;
}

} // namespace colocsim
