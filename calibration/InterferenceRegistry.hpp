#pragma once
// The one registry of interference models (models/README.md, Interference): name, description, what the
// model reads besides the residents' signatures, and its factory. An explicit table like the policy
// registry (policies/PolicyRegistry.hpp): the scenario's `interference` key takes its choices and help from
// it, an unknown name lists the registered ones, and the docs list every entry (tests/sim/Docs_test.cpp).
#include "calibration/Calibration.hpp"
#include "calibration/PairTable.hpp"
#include "models/Interference.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace colocsim {

/// What a factory may read: the device type's calibration, and the pair table the scenario names
/// (interference_table; nullptr unless the model needs_pair_table).
struct InterferenceInputs {
  const Calibration& calibration;
  const PairTable* pair_table = nullptr;
};

struct InterferenceModelInfo {
  std::string name;
  std::string description; ///< one line: what it models (scenario help, docs)
  /// Reads the calibration's pairwise interference table.
  bool needs_calibration_table = false;
  /// ...and that table must have been measured by the microbenchmark (tag measured-by-microbenchmark).
  bool needs_measured_calibration = false;
  /// Reads a pair table named by the scenario's interference_table (refused without one; the other
  /// models refuse an interference_table).
  bool needs_pair_table = false;
  std::function<std::shared_ptr<const InterferenceModel>(const InterferenceInputs&)> factory;
};

/// The registered models, in the order the docs and `interference`'s choices list them.
const std::vector<InterferenceModelInfo>& interference_registry();

/// The registered names, in registry order.
std::vector<std::string> interference_model_names();

/// Looks up a model; throws InputError "unknown interference model 'x'; valid: a, b" at `where`.
const InterferenceModelInfo& find_interference_model(const std::string& name,
                                                     const SourceLocation& where = {});

} // namespace colocsim
