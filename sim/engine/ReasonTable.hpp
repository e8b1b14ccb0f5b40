#pragma once
// Why jobs did not complete (JobRecord::reason; docs/architecture.md, The engine's components): each text is
// stored once and jobs hold its index, so a million rejected jobs hold a million integers, not strings.
#include "sim/Engine.hpp"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace colocsim {

class ReasonTable {
public:
  /// Index 0: no reason (a completed job).
  static constexpr std::uint32_t NONE = 0;
  /// The index of `text`, added at the end the first time it is seen.
  std::uint32_t id(const std::string& text);
  const std::string& text(std::uint32_t id) const { return texts_[id]; }
  std::size_t size() const { return texts_.size(); }
  /// Why a job is cancelled when a job it depends on ended with status `dep` (failed, rejected, never
  /// started; any other status: cancelled).
  std::uint32_t dependency(JobStatus dep);

private:
  std::vector<std::string> texts_{std::string()};
  std::unordered_map<std::string, std::uint32_t> index_;
};

} // namespace colocsim
