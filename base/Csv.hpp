#pragma once
// RFC 4180 CSV for the files colocsim writes and reads back whole (jobs.csv, sweep.csv, measurements):
// one writer of a field and one splitter of a line, so that what one writes the other reads. Trace files
// are read by workloads/CsvLines.hpp and workloads/NativeCsv.hpp, which also track columns for messages.
#include <string>
#include <string_view>
#include <vector>

namespace colocsim {

/// `s` as one CSV field: as it is, or in double quotes (each '"' doubled) when it holds a comma, a quote or
/// a line break ('\n' or '\r'). Bytes that are not UTF-8 are written as `\xNN` (base/Utf8.hpp).
std::string csv_field(std::string_view s);

/// Splits one CSV line into `out` (cleared first): fields end at commas outside double quotes, and "" inside
/// quotes is one quote. A '\r' that ends the line (a CRLF file read with std::getline) is dropped. Returns
/// false when a quoted field is not closed on the line (`out` then holds what was read).
bool split_csv_line(std::string_view line, std::vector<std::string>& out);

} // namespace colocsim
