// The one parser of Job::gpu_types (models/GpuTypes.hpp): names in order, empty elements kept as empty names
// (which match no type and which the readers refuse), an empty text naming none.
#include "models/GpuTypes.hpp"
#include "tests/CatchCompat.hpp"

#include <string_view>
#include <vector>

using namespace colocsim;
using V = std::vector<std::string_view>;

TEST_CASE("gpu_types: an empty text names no type")
{
  CHECK(gpu_type_names("").empty());
  CHECK_FALSE(gpu_types_list("", ""));
  CHECK_FALSE(gpu_types_list("", "T4"));
  CHECK_FALSE(gpu_types_well_formed(""));
}

TEST_CASE("gpu_types: a single name")
{
  CHECK(gpu_type_names("T4") == V{"T4"});
  CHECK(gpu_types_list("T4", "T4"));
  CHECK_FALSE(gpu_types_list("T4", "T"));
  CHECK_FALSE(gpu_types_list("T4", "T4x"));
  CHECK(gpu_types_well_formed("T4"));
}

TEST_CASE("gpu_types: several names, in order")
{
  CHECK(gpu_type_names("V100M16|V100M32|A10") == V{"V100M16", "V100M32", "A10"});
  CHECK(gpu_types_list("V100M16|V100M32|A10", "V100M32"));
  CHECK(gpu_types_list("V100M16|V100M32|A10", "A10"));
  CHECK_FALSE(gpu_types_list("V100M16|V100M32|A10", "V100M"));
  CHECK(gpu_types_well_formed("V100M16|V100M32|A10"));
  // The first name that a predicate accepts stops the walk.
  int seen = 0;
  CHECK(any_gpu_type("a|b|c", [&](std::string_view n) {
    ++seen;
    return n == "b";
  }));
  CHECK(seen == 2);
}

TEST_CASE("gpu_types: an empty element is an empty name, and the text is not well formed")
{
  CHECK(gpu_type_names("T4||V100") == V{"T4", "", "V100"});
  CHECK(gpu_type_names("|T4") == V{"", "T4"});
  CHECK(gpu_type_names("T4|") == V{"T4", ""});
  CHECK(gpu_type_names("|") == V{"", ""});
  CHECK_FALSE(gpu_types_list("T4||V100", "T"));
  CHECK(gpu_types_list("T4||V100", "V100"));
  CHECK_FALSE(gpu_types_well_formed("T4||V100"));
  CHECK_FALSE(gpu_types_well_formed("|T4"));
  CHECK_FALSE(gpu_types_well_formed("T4|"));
  CHECK_FALSE(gpu_types_well_formed("T4| V100"));
  CHECK_FALSE(gpu_types_well_formed("T4\t"));
}
