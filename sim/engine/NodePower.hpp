#pragma once
// Node power of the engine (docs/architecture.md, The engine's components): each node's state (on, off,
// booting), the boots in progress, the nodes powered off but not yet reported to the policy, and the node
// baselines' energy, integrated exactly between the engine's events: a subscriber of NODES_CHANGING, which
// the engine publishes before any node's state changes. Devices' own power is the engine's; a device draws
// nothing while its node is off.
#include "sim/engine/EngineEvents.hpp"

#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace colocsim {

class NodePower final : public EngineSubscriber {
public:
  enum class State { ON, OFF, BOOTING };
  EngineEventSet events() const override { return {EngineEvent::NODES_CHANGING}; }
  void nodes_changing(double t_s) override { integrate(t_s); }

  NodePower() = default; ///< no nodes (replaced before the run)
  /// `node_count` nodes, all on; `baseline_w[n]` is node n's baseline power (nodes past its end: 0 W).
  NodePower(std::size_t node_count, const std::vector<double>& baseline_w);

  std::size_t size() const { return state_.size(); }
  State state(std::uint32_t node) const { return state_[node]; }
  bool on(std::uint32_t node) const { return state_[node] == State::ON; }
  bool off(std::uint32_t node) const { return state_[node] == State::OFF; }
  /// Σ baselines of the nodes on or booting (W).
  double baseline_w() const { return baseline_w_; }
  std::uint32_t powered() const { return powered_; }

  /// Brings the baseline energy up to sim time `now`.
  void integrate(double now);
  /// Node n (off) starts booting at sim time `now`: it draws its baseline at once and is on at now + boot_s.
  void power_on(std::uint32_t node, double now, double boot_s);
  /// Node n (on or booting) is powered off; powered_off() lists it until clear_powered_off().
  void power_off(std::uint32_t node);
  /// The earliest boot that ends at or before sim time `limit`: that node is on now.
  std::optional<std::uint32_t> finish_boot(double limit);
  /// Sim time of the next boot to end, if any.
  std::optional<double> next_boot() const
  {
    if (boots_.empty()) return std::nullopt;
    return boots_.begin()->first;
  }
  /// The nodes powered off since the last call, in the order they were powered off.
  const std::vector<std::uint32_t>& powered_off() const { return powered_off_; }
  void clear_powered_off() { powered_off_.clear(); }
  /// Baseline energy integrated so far (J; call integrate() first for an up-to-date value).
  double energy_j() const { return energy_j_; }

private:
  std::vector<State> state_;
  std::vector<double> node_w_;
  std::uint32_t powered_ = 0;                        ///< ON or BOOTING: drawing their baseline
  double baseline_w_ = 0;                            ///< Σ baselines of the nodes ON or BOOTING
  double energy_j_ = 0, energy_t_ = 0;               ///< Σ baselines integrated up to energy_t_ (sim time)
  std::set<std::pair<double, std::uint32_t>> boots_; ///< (sim time ready, node)
  std::vector<std::uint32_t> powered_off_;
};

} // namespace colocsim
