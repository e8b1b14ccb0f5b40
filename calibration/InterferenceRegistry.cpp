#include "calibration/InterferenceRegistry.hpp"

#include "base/Errors.hpp"
#include "models/SoloUtilisation.hpp"

namespace colocsim {

const std::vector<InterferenceModelInfo>& interference_registry()
{
  static const std::vector<InterferenceModelInfo> registry{
      {.name = "none",
       .description = "sharing mode only",
       .factory = [](const InterferenceInputs&) -> std::shared_ptr<const InterferenceModel> {
         return std::make_shared<NoInterference>();
       }},
      {.name = "table",
       .description = "the calibration's pairwise table",
       .needs_calibration_table = true,
       .factory = [](const InterferenceInputs& in) -> std::shared_ptr<const InterferenceModel> {
         return std::make_shared<TableInterference>(make_table_interference(in.calibration));
       }},
      {.name = "contention",
       .description = "bandwidth sharing + residual, reference §6.3",
       .factory = [](const InterferenceInputs&) -> std::shared_ptr<const InterferenceModel> {
         return std::make_shared<ContentionInterference>();
       }},
      {.name = "calibrated",
       .description = "the table of a calibration fitted from microbenchmark measurements: `colocsim "
                      "calibrate fit`",
       .needs_calibration_table = true,
       .needs_measured_calibration = true,
       .factory = [](const InterferenceInputs& in) -> std::shared_ptr<const InterferenceModel> {
         return std::make_shared<TableInterference>(make_table_interference(in.calibration));
       }},
      {.name = "pair-total",
       .description = "measured total pair slowdowns of interference_table, replacing the sharing factor in "
                      "its modes",
       .needs_pair_table = true,
       .factory = [](const InterferenceInputs& in) -> std::shared_ptr<const InterferenceModel> {
         if (in.pair_table == nullptr)
           throw std::logic_error("interference model pair-total built without its pair table");
         return std::make_shared<PairTotalInterference>(make_pair_total_interference(*in.pair_table));
       }},
      {.name = "solo-utilisation",
       .description = "total pair slowdowns predicted from each job's solo SM utilisation, replacing the "
                      "sharing factor in time-slice and mps",
       .factory = [](const InterferenceInputs&) -> std::shared_ptr<const InterferenceModel> {
         return std::make_shared<SoloUtilisationInterference>();
       }},
  };
  return registry;
}

std::vector<std::string> interference_model_names()
{
  std::vector<std::string> names;
  for (const auto& m : interference_registry())
    names.push_back(m.name);
  return names;
}

const InterferenceModelInfo& find_interference_model(const std::string& name, const SourceLocation& where)
{
  for (const auto& m : interference_registry())
    if (m.name == name) return m;
  throw InputError(where, "interference",
                   "unknown interference model '" + name + "'; valid: " + join(interference_model_names()));
}

} // namespace colocsim
