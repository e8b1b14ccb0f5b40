// models/Gzip.hpp: gzip files as streams. What the writer compresses, the reader gives back byte for byte;
// the reader takes plain files as they are; a cut-short file and a full disk are reported, never silently
// accepted.
#include "models/Gzip.hpp"

#include "tests/CatchCompat.hpp"
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace colocsim;
namespace fs = std::filesystem;

namespace {

fs::path temp_file(const std::string& name)
{
  const fs::path dir = fs::temp_directory_path() / "colocsim-gzip-test";
  fs::create_directories(dir);
  return dir / name;
}

std::string read_all(std::istream& in)
{
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// 200,000 lines of CSV: far more than one 64 KiB buffer, so every refill path runs.
std::string sample_text()
{
  std::string text = "job_id,submit_s,energy_j\n";
  for (int i = 0; i < 200000; ++i)
    text += std::to_string(i) + "," + std::to_string(i * 3) + ",1.5e+" + std::to_string(i % 9) + "\n";
  return text;
}

} // namespace

TEST_CASE("gzip: what the writer compresses reads back byte for byte, and is smaller", "[gzip]")
{
  const auto path = temp_file("roundtrip.csv.gz").string();
  const std::string text = sample_text();
  {
    GzipOfstream out(path);
    REQUIRE(out.is_open());
    out << text.substr(0, 1000);          // through overflow, one char at a time is operator<<'s business
    out.write(text.data() + 1000, 70000); // one write larger than the buffer
    out << text.substr(71000);
    REQUIRE(out.close());
    REQUIRE(out.close()); // idempotent
  }
  CHECK(has_gzip_magic(path));
  CHECK(fs::file_size(path) < text.size() / 3);
  GzipIfstream in(path);
  REQUIRE(in.is_open());
  CHECK(read_all(in) == text);
  CHECK(in.error().empty());
}

TEST_CASE("gzip: the reader reads a plain file as it is, line by line", "[gzip]")
{
  const auto path = temp_file("plain.csv").string();
  {
    std::ofstream out(path);
    out << "a,b\n1,2\n3,4\n";
  }
  CHECK_FALSE(has_gzip_magic(path));
  GzipIfstream in(path);
  REQUIRE(in.is_open());
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line))
    lines.push_back(line);
  CHECK(lines == std::vector<std::string>{"a,b", "1,2", "3,4"});
}

TEST_CASE("gzip: a missing file does not open, and a cut-short file reports an error", "[gzip]")
{
  GzipIfstream missing(temp_file("does-not-exist.gz").string());
  CHECK_FALSE(missing.is_open());
  CHECK(missing.fail());

  const auto path = temp_file("cut.csv.gz").string();
  {
    GzipOfstream out(path);
    out << sample_text();
    REQUIRE(out.close());
  }
  const auto size = fs::file_size(path);
  fs::resize_file(path, size / 2);
  GzipIfstream in(path);
  REQUIRE(in.is_open());
  const std::string got = read_all(in);
  CHECK(got.size() < sample_text().size());
  CHECK_FALSE(in.error().empty()); // "unexpected end of file", not a quiet short read
}

TEST_CASE("gzip: a full disk makes close() fail with the reason", "[gzip]")
{
  if (!fs::exists("/dev/full")) return; // not Linux: nothing to write into
  GzipOfstream out("/dev/full");
  REQUIRE(out.is_open());
  out << sample_text();
  CHECK_FALSE(out.close());
  CHECK_FALSE(out.error().empty());
  CHECK(out.bad());
}
