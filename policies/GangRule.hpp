#pragma once
// How a job of more than one device is laid out over nodes (scenario key policy.placement). The policy still
// decides which devices may take the job and in which order it prefers them; the rule only decides which of
// them a gang gets (policies/GangPlacement.hpp).
#include <optional>
#include <string>
#include <string_view>

namespace colocsim {

enum class GangRule {
  /// Fewest nodes, as Slurm's select/cons_tres and Kubernetes' GPU device plugins place GPU jobs: a job that
  /// fits in one node never spans two; a larger one takes whole nodes first, then the fewest extra.
  PACK,
  /// One device per node in turn, on as many nodes as possible.
  SPREAD,
  /// The first devices in the policy's order, nodes ignored (the behaviour before the rule existed).
  ANY,
};

inline std::string_view gang_rule_name(GangRule r)
{
  switch (r) {
  case GangRule::PACK:
    return "pack";
  case GangRule::SPREAD:
    return "spread";
  case GangRule::ANY:
    return "any";
  }
  return "pack";
}

/// "pack, spread or any": what errors about an unknown rule list.
inline constexpr std::string_view GANG_RULE_NAMES = "pack, spread or any";

inline std::optional<GangRule> parse_gang_rule(std::string_view text)
{
  for (auto r : {GangRule::PACK, GangRule::SPREAD, GangRule::ANY})
    if (text == gang_rule_name(r)) return r;
  return std::nullopt;
}

} // namespace colocsim
