#pragma once
// Text the output files carry from their inputs (job ids, profile names, the scenario's name...) as valid
// UTF-8, whatever bytes the inputs held: summary.json and events.jsonl must be RFC 8259 JSON, jobs.csv and
// the SVG figures UTF-8 text. A byte that is not part of a valid UTF-8 sequence (RFC 3629: no overlong
// form, no surrogate, nothing above U+10FFFF) is written as the four characters `\xNN` (its value in two
// lowercase hex digits, as Python's "backslashreplace"); valid text, ASCII or not, is kept as it is.
#include <string>
#include <string_view>

namespace colocsim {

/// True when `s` is valid UTF-8.
bool is_utf8(std::string_view s);

/// `s` with every byte outside a valid UTF-8 sequence replaced by `\xNN`; `s` itself when it is valid.
std::string utf8_or_escaped(std::string_view s);

} // namespace colocsim
