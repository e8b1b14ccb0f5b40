// The interference-model registry: every entry builds the model it names from its inputs, the flags say
// what each reads, and an unknown name is refused with the list of registered ones.
#include "calibration/InterferenceRegistry.hpp"
#include "tests/CatchCompat.hpp"

#include <set>

using namespace colocsim;
using colocsim::test::ContainsSubstring;
using colocsim::test::read_source_file;

TEST_CASE("interference registry: names are unique and each factory builds its model", "[interference]")
{
  const auto cal = load_calibration(read_source_file("calibration/data/v100-sxm2-16gb-default.yaml"),
                                    "v100-sxm2-16gb-default.yaml");
  const auto pairs =
      load_pair_table(read_source_file("calibration/interference/gavel-v100.yaml"), "gavel-v100.yaml");
  std::set<std::string> seen;
  for (const auto& m : interference_registry()) {
    INFO(m.name);
    CHECK(seen.insert(m.name).second);
    CHECK_FALSE(m.description.empty());
    REQUIRE(m.factory);
    const auto model = m.factory({.calibration = cal, .pair_table = m.needs_pair_table ? &pairs : nullptr});
    REQUIRE(model != nullptr);
    // `calibrated` is the `table` model over a measured table.
    CHECK(std::string(model->name()) == (m.name == "calibrated" ? std::string("table") : m.name));
    if (m.needs_measured_calibration) CHECK(m.needs_calibration_table);
  }
  CHECK(seen ==
        std::set<std::string>{"none", "table", "contention", "calibrated", "pair-total", "solo-utilisation"});
  CHECK(find_interference_model("pair-total").needs_pair_table);
  CHECK(find_interference_model("calibrated").needs_measured_calibration);
}

TEST_CASE("interference registry: an unknown name lists the registered ones", "[interference]")
{
  try {
    find_interference_model("gavel", SourceLocation{"s.yaml", 4, 15});
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    const std::string text = e.what();
    CHECK_THAT(text, ContainsSubstring("unknown interference model 'gavel'"));
    CHECK_THAT(text, ContainsSubstring("s.yaml:4:15"));
    for (const auto& name : interference_model_names())
      CHECK_THAT(text, ContainsSubstring(name));
  }
}
