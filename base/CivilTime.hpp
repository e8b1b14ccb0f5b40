#pragma once
// Calendar dates and seconds since 1970-01-01 UTC, for the readers of traces that carry wall-clock times
// (sacct, Kubernetes): no time zone database, no locale, the same result on every platform. The algorithms
// are H. Hinnant's days_from_civil and civil_from_days (proleptic Gregorian calendar).
#include <string>

namespace colocsim {

/// Days since 1970-01-01 of the date y-m-d (m in 1..12, d in 1..31; not checked), negative before it.
long long days_from_civil(long long y, unsigned m, unsigned d);

/// True when y-m-d is a date of the proleptic Gregorian calendar (29 February only in leap years).
bool valid_civil_date(long long y, long long m, long long d);

/// `YYYY-MM-DDTHH:MM:SS` of `seconds` since 1970-01-01 00:00:00 (whole seconds; before 1970 too).
std::string civil_text(long long seconds);

} // namespace colocsim
