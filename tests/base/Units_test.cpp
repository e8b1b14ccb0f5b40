// Units: quantities as users write them ("64GB", "1.5GHz", "5min") come back in SI base units.
#include "base/Units.hpp"
#include "tests/CatchCompat.hpp"

using namespace colocsim;
using colocsim::test::ContainsSubstring;
using colocsim::test::WithinRel;

TEST_CASE("sizes use decimal and binary prefixes", "[units]")
{
  CHECK_THAT(*parse_quantity("64GB", Unit::BYTES), WithinRel(64e9, 1e-12));              // 64 × 10^9
  CHECK_THAT(*parse_quantity("512MiB", Unit::BYTES), WithinRel(536870912.0, 1e-12));     // 512 × 1024²
  CHECK_THAT(*parse_quantity("65520MiB", Unit::BYTES), WithinRel(68702699520.0, 1e-12)); // 65520 × 1048576
  CHECK_THAT(*parse_quantity("1.5TB", Unit::BYTES), WithinRel(1.5e12, 1e-12));
  CHECK_THAT(*parse_quantity("2KiB", Unit::BYTES), WithinRel(2048.0, 1e-12));
  CHECK_THAT(*parse_quantity("64 GB", Unit::BYTES), WithinRel(64e9, 1e-12));  // space before the unit
  CHECK_THAT(*parse_quantity("4096", Unit::BYTES), WithinRel(4096.0, 1e-12)); // bare number = bytes
}

TEST_CASE("frequencies, powers, durations and energies", "[units]")
{
  CHECK_THAT(*parse_quantity("1.5GHz", Unit::HERTZ), WithinRel(1.5e9, 1e-12));
  CHECK_THAT(*parse_quantity("1500MHz", Unit::HERTZ), WithinRel(1.5e9, 1e-12));
  CHECK_THAT(*parse_quantity("600W", Unit::WATTS), WithinRel(600.0, 1e-12));
  CHECK_THAT(*parse_quantity("1.2kW", Unit::WATTS), WithinRel(1200.0, 1e-12));
  CHECK_THAT(*parse_quantity("38.6MW", Unit::WATTS), WithinRel(38.6e6, 1e-12));
  CHECK_THAT(*parse_quantity("5min", Unit::SECONDS), WithinRel(300.0, 1e-12)); // 5 × 60
  CHECK_THAT(*parse_quantity("2h", Unit::SECONDS), WithinRel(7200.0, 1e-12));  // 2 × 3600
  CHECK_THAT(*parse_quantity("250ms", Unit::SECONDS), WithinRel(0.25, 1e-12));
  CHECK_THAT(*parse_quantity("1d", Unit::SECONDS), WithinRel(86400.0, 1e-12));
  CHECK_THAT(*parse_quantity("1kWh", Unit::JOULES), WithinRel(3.6e6, 1e-12)); // 1000 W × 3600 s
  CHECK_THAT(*parse_quantity("1.0e12", Unit::NONE), WithinRel(1e12, 1e-12));  // exponent is not a unit
}

TEST_CASE("unknown or mismatched units are rejected", "[units]")
{
  CHECK_FALSE(parse_quantity("12XB", Unit::BYTES).has_value());
  CHECK_FALSE(parse_quantity("GB", Unit::BYTES).has_value());
  CHECK_FALSE(parse_quantity("", Unit::BYTES).has_value());
  CHECK_FALSE(parse_quantity("64GB", Unit::HERTZ).has_value()); // right number, wrong kind of unit
  CHECK_FALSE(parse_quantity("5m", Unit::SECONDS).has_value()); // minutes are "min"
  CHECK_FALSE(parse_quantity("3W", Unit::NONE).has_value());    // a plain number takes no unit
  CHECK_FALSE(parse_quantity("inf", Unit::WATTS).has_value());
}

TEST_CASE("strict number parsing", "[units]")
{
  CHECK_THAT(*parse_double(" +2.5 "), WithinRel(2.5, 1e-12));
  CHECK_FALSE(parse_double("1.5x").has_value());
  CHECK_FALSE(parse_double("nan").has_value());
  CHECK_FALSE(parse_double("inf").has_value());
  CHECK(*parse_int("12") == 12);
  CHECK(*parse_int("-3") == -3);
  CHECK_FALSE(parse_int("1.5").has_value());
  CHECK_FALSE(parse_int("").has_value());
}

TEST_CASE("unit help names an example", "[units]")
{
  CHECK_THAT(unit_help(Unit::BYTES), ContainsSubstring("64GB"));
  CHECK_THAT(unit_help(Unit::HERTZ), ContainsSubstring("1.6GHz"));
  CHECK_THAT(unit_help(Unit::SECONDS), ContainsSubstring("5min"));
}
