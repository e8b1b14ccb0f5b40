#include "policies/Policy.hpp"

#include <sstream>

namespace colocsim {

std::string describe(const Decision& d)
{
  std::ostringstream os;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Place>) {
          os << "place job " << x.job << " on devices [";
          for (std::size_t i = 0; i < x.devices.size(); ++i)
            os << (i ? ", " : "") << x.devices[i];
          os << "]";
          if (!x.instances.empty()) {
            os << " (MIG instances [";
            for (std::size_t i = 0; i < x.instances.size(); ++i)
              os << (i ? ", " : "") << x.instances[i];
            os << "])";
          }
        } else if constexpr (std::is_same_v<T, Reject>) {
          os << "reject job " << x.job << " (" << x.reason << ")";
        } else if constexpr (std::is_same_v<T, SetNodePower>) {
          os << "power node " << x.node << (x.on ? " on" : " off");
        } else if constexpr (std::is_same_v<T, Repartition>) {
          os << "repartition device " << x.device << " to " << to_string(x.mode);
        } else if constexpr (std::is_same_v<T, SetFrequency>) {
          os << "set device " << x.device << " to " << x.freq_hz / 1e6 << " MHz";
        } else if constexpr (std::is_same_v<T, ReconfigureMig>) {
          os << "reconfigure MIG on device " << x.device << ": destroy instances [";
          for (std::size_t i = 0; i < x.change.destroy.size(); ++i)
            os << (i ? ", " : "") << x.change.destroy[i];
          os << "], create " << x.change.create.size() << " instance(s)";
        } else {
          os << "wake at t=" << x.at_s;
        }
      },
      d);
  return os.str();
}

} // namespace colocsim
