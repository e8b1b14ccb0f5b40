// base/Gzip.hpp: gzip files as streams. What the writer compresses, the reader gives back byte for byte;
// the reader takes plain files as they are; a cut-short file and a full disk are reported, never silently
// accepted.
#include "base/Gzip.hpp"

#include "tests/CatchCompat.hpp"
#include <array>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

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

TEST_CASE("gzip: a stream cut anywhere, or with a bad CRC or length, ends the read with badbit, never early",
          "[gzip]")
{
  // 96 rows, as a small jobs.csv: the whole stream fits in one read, so a quiet error would leave a short but
  // plausible file. Cut inside the data, before the end-of-stream block, and inside the 8-byte trailer
  // (CRC-32, then ISIZE); then a complete file with one bit of its CRC or of its length flipped.
  std::string text = "id,submit_s\n";
  for (int i = 0; i < 96; ++i)
    text += "job-" + std::to_string(i) + "," + std::to_string(i * 7) + "\n";
  const auto whole = temp_file("whole96.csv.gz").string();
  {
    GzipOfstream out(whole);
    out << text;
    REQUIRE(out.close());
  }
  std::string bytes;
  {
    std::ifstream in(whole, std::ios::binary);
    bytes = read_all(in);
  }
  const std::size_t size = bytes.size();
  REQUIRE(size > 40);
  struct Damage {
    std::string name, bytes;
  };
  std::vector<Damage> damaged;
  for (const std::size_t keep : {std::size_t{12}, size / 2, size - 9, size - 8, size - 5, size - 4, size - 1})
    damaged.push_back(
        {"cut to " + std::to_string(keep) + " of " + std::to_string(size) + " bytes", bytes.substr(0, keep)});
  std::string crc = bytes, length = bytes;
  crc[size - 8] = static_cast<char>(crc[size - 8] ^ 1);
  length[size - 1] = static_cast<char>(length[size - 1] ^ 1);
  damaged.push_back({"CRC-32 flipped", crc});
  damaged.push_back({"ISIZE flipped", length});
  for (const auto& d : damaged) {
    INFO(d.name);
    const auto path = temp_file("damaged.csv.gz").string();
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << d.bytes;
    }
    GzipIfstream in(path);
    REQUIRE(in.is_open());
    for (std::string line; std::getline(in, line);) {
    }
    // With only the trailer damaged every line may have come: bad() is what tells the file is not whole.
    CHECK(in.bad()); // what a reader's loop checks after the last line
    CHECK_FALSE(in.error().empty());
    // A reader of the buffer itself (CsvLines' LineReader reads blocks with sgetn) gets an InputError naming
    // the file.
    GzipInBuf buf;
    REQUIRE(buf.open(path));
    std::array<char, 256> block{};
    CHECK_THROWS_WITH(
        [&] {
          while (buf.sgetn(block.data(), static_cast<std::streamsize>(block.size())) > 0) {
          }
        }(),
        Catch::Matchers::ContainsSubstring(path + ": gzip data cut short or corrupt"));
  }
  GzipIfstream in(whole); // the undamaged file: every line, no error
  std::string line;
  int lines = 0;
  while (std::getline(in, line))
    ++lines;
  CHECK(lines == 97);
  CHECK_FALSE(in.bad());
  CHECK(in.error().empty());
}

TEST_CASE("gzip: the reader refuses a FIFO or a directory instead of waiting on it", "[gzip]")
{
  const auto dir = temp_file("not-regular");
  fs::remove_all(dir);
  fs::create_directories(dir);
  GzipIfstream in(dir.string());
  CHECK_FALSE(in.is_open());
  CHECK(in.error() == "not a regular file");
  const auto fifo = (dir / "fifo.csv.gz").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // gzopen blocks in open() until a writer comes: on another thread, released by the test (opening the write
  // end) if it has not answered in 20 s, so that the test fails instead of hanging.
  auto opened = std::async(std::launch::async, [&] {
    GzipIfstream pipe(fifo);
    return std::make_pair(pipe.is_open(), pipe.error());
  });
  if (opened.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
    FAIL_CHECK("GzipIfstream waited on the FIFO");
  }
  const auto [is_open, error] = opened.get();
  CHECK_FALSE(is_open);
  CHECK(error == "not a regular file");
  fs::remove_all(dir);
}
