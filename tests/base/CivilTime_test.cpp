// base/CivilTime: dates against Python's datetime (values computed there, 2026-11-29:
// (date(y, m, d) - date(1970, 1, 1)).days and datetime.utcfromtimestamp(s).isoformat()).
#include "tests/CatchCompat.hpp"

#include "base/CivilTime.hpp"

using namespace colocsim;

TEST_CASE("days_from_civil counts days from 1970-01-01, leap days and dates before 1970 included", "[base]")
{
  CHECK(days_from_civil(1970, 1, 1) == 0);
  CHECK(days_from_civil(2000, 3, 1) == 11017);
  CHECK(days_from_civil(2024, 2, 29) == 19782);
  CHECK(days_from_civil(1969, 12, 31) == -1);
  CHECK(days_from_civil(1600, 2, 29) == -135081);
}

TEST_CASE("civil_text writes seconds since 1970 as a UTC date and time, before 1970 too", "[base]")
{
  CHECK(civil_text(0) == "1970-01-01T00:00:00");
  CHECK(civil_text(951782400 + 3723) == "2000-02-29T01:02:03");
  CHECK(civil_text(-1) == "1969-12-31T23:59:59");
  CHECK(civil_text(-135081LL * 86400) == "1600-02-29T00:00:00");
  for (const long long s : {0LL, 951785123LL, -1LL, -86400LL, 1709251199LL}) // round trip at day edges
    CHECK(days_from_civil(std::stoll(civil_text(s).substr(0, 4)),
                          static_cast<unsigned>(std::stoi(civil_text(s).substr(5, 2))),
                          static_cast<unsigned>(std::stoi(civil_text(s).substr(8, 2)))) ==
          (s >= 0 ? s / 86400 : -((-s + 86399) / 86400)));
}

TEST_CASE("valid_civil_date accepts the days each month has, 29 February only in leap years", "[base]")
{
  // Month lengths from the Gregorian calendar; leap years: divisible by 4, except centuries not divisible by
  // 400.
  const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (int m = 1; m <= 12; ++m) {
    CHECK(valid_civil_date(2023, m, days[m - 1]));
    CHECK_FALSE(valid_civil_date(2023, m, days[m - 1] + (m == 2 ? 2 : 1)));
    CHECK_FALSE(valid_civil_date(2023, m, 0));
  }
  CHECK_FALSE(valid_civil_date(2023, 2, 29));
  CHECK(valid_civil_date(2024, 2, 29));
  CHECK(valid_civil_date(2000, 2, 29));
  CHECK_FALSE(valid_civil_date(1900, 2, 29));
  CHECK_FALSE(valid_civil_date(2100, 2, 29));
  CHECK_FALSE(valid_civil_date(2024, 0, 1));
  CHECK_FALSE(valid_civil_date(2024, 13, 1));
}
