#pragma once
// Strict readers of what colocsim writes, used by the tests to check EVERY output file the suite produces
// (CONTRIBUTING.md, Tests: "Every output is parsed strictly"). Independent of the product's own writers and
// readers on purpose: they are written from RFC 8259 (JSON) and RFC 4180 (CSV), not from sim/Outputs.cpp.
//
// JSON: one value, recursive descent, depth at most MAX_JSON_DEPTH; rejected: inf, nan, NaN, Infinity (any
// spelling), numbers outside RFC 8259's grammar (leading zeros, `+1`, `1.`, `.5`) or too large for a double,
// trailing commas, duplicate keys in one object, bad escapes and lone surrogates, raw control characters
// in strings, invalid UTF-8, anything but whitespace after the value.
// CSV: RFC 4180 quoting (a quoted field ends at a lone `"` followed by `,` or the end of the record; a `"`
// inside an unquoted field is an error; an unterminated quote is an error), records end with LF or CRLF,
// every record has the header's number of fields, no empty record (the file ends with exactly one newline),
// no cell spelling a non-finite number anywhere, and every cell of a numeric column is a finite number or
// empty (the outputs' documented "no value" token; docs/formats/outputs.md, sweep.md).
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace colocsim::test {

inline constexpr int MAX_JSON_DEPTH = 64;

/// The problems of a JSON text (at most one: parsing stops at the first), each "NAME:LINE:COL: what".
std::vector<std::string> check_json(std::string_view text, const std::string& name);

/// The problems of a CSV text, each "NAME:LINE: what". `numeric` names the columns that must hold finite
/// numbers (or be empty); check_output_file() derives them from the file's name and header.
std::vector<std::string> check_csv(std::string_view text, const std::string& name,
                                   const std::vector<std::string>& numeric = {});

/// The columns of a CSV output that must be numeric, from its file name and header: jobs.csv,
/// timeseries.csv, sweep.csv and measurements.csv by their documented schemas; any other file by its
/// headers that carry a unit suffix (`_s`, `_j`, `_w`, ...).
std::vector<std::string> numeric_columns(const std::string& file_name,
                                         const std::vector<std::string>& header);

/// check_csv with the numeric columns of numeric_columns(file_name, the text's header).
std::vector<std::string> check_csv_output(std::string_view text, const std::string& name,
                                          const std::string& file_name);

/// check_json / check_csv on a file by its extension (.json, .csv); other files: no problems.
std::vector<std::string> check_output_file(const std::filesystem::path& file);

/// Every .json and .csv file under `path` (a directory, recursively; or one file). A path that does not
/// exist is a problem. Sets `*checked` to the number of files parsed when given.
std::vector<std::string> check_output_tree(const std::filesystem::path& path, std::size_t* checked = nullptr);

/// The problems of `colocsim bench`'s key=value lines: each value that should be a number is a finite one.
std::vector<std::string> check_key_values(std::string_view text, const std::string& name);

} // namespace colocsim::test
