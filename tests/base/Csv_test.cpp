// The one CSV writer and splitter (base/Csv.hpp) that jobs.csv, sweep.csv, measurements files and
// `colocsim plot` share: RFC 4180 quoting, worked out by hand, and what one writes the other reads back.
#include "base/Csv.hpp"
#include "tests/CatchCompat.hpp"

#include <string>
#include <vector>

using namespace colocsim;

TEST_CASE("a field is quoted only when it holds a comma, a quote or a line break", "[csv]")
{
  CHECK(csv_field("plain") == "plain");
  CHECK(csv_field("") == "");
  CHECK(csv_field("a,b") == "\"a,b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\""); // each quote doubled, the whole wrapped
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(csv_field("cr\rhere") == "\"cr\rhere\"");
  CHECK(csv_field(" spaced ") == " spaced "); // blanks are data, not a reason to quote
}

TEST_CASE("a line splits at commas outside quotes, and a doubled quote inside quotes is one quote", "[csv]")
{
  std::vector<std::string> f;
  REQUIRE(split_csv_line("a,\"b,c\",\"d\"\"e\",", f));
  CHECK(f == std::vector<std::string>{"a", "b,c", "d\"e", ""});
  REQUIRE(split_csv_line("", f));
  CHECK(f == std::vector<std::string>{""});
  REQUIRE(split_csv_line("x,y\r", f)); // a CRLF line read with std::getline
  CHECK(f == std::vector<std::string>{"x", "y"});
  CHECK_FALSE(split_csv_line("a,\"open", f)); // the quote is never closed
  CHECK(f == std::vector<std::string>{"a", "open"});
}

TEST_CASE("what csv_field writes, split_csv_line reads back", "[csv]")
{
  const std::vector<std::string> row{"id,1", "\"q\"", "", "plain", "a\"\"b", ",", "\""};
  std::string line;
  for (std::size_t i = 0; i < row.size(); ++i)
    line += (i ? "," : "") + csv_field(row[i]);
  CHECK(line == "\"id,1\",\"\"\"q\"\"\",,plain,\"a\"\"\"\"b\",\",\",\"\"\"\"");
  std::vector<std::string> back;
  REQUIRE(split_csv_line(line, back));
  CHECK(back == row);
}
