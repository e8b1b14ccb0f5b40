#pragma once
// Shared pieces of the libFuzzer harnesses (tests/fuzz/README.md). A harness feeds the bytes to one reader
// or loader. The library's typed input errors (InputError, base/Errors.hpp; UsageError for the CLI) are the
// expected answer to bad bytes and are swallowed; anything else (a crash, another exception, a sanitizer
// report, a timeout, a leak) is a finding: an uncaught exception aborts, and libFuzzer reports it.
#include "base/Errors.hpp"
#include "workloads/JobReader.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <unistd.h>

namespace colocsim::fuzz {

/// The input as text (readers take any bytes, NULs included).
inline std::string_view as_text(const std::uint8_t* data, std::size_t size)
{
  return {reinterpret_cast<const char*>(data), size};
}

/// Runs `f`; an InputError is the expected outcome of bad input, everything else propagates.
template <class F> void expect_input_errors(F&& f)
{
  try {
    f();
  } catch (const InputError&) {
  }
}

/// Reads every job (at most `cap`, so a reader that never ends shows up as a timeout, not a hang) and asks
/// for the warnings, as a run would.
inline void drain(JobReader& reader, std::size_t cap = 1'000'000)
{
  for (std::size_t i = 0; i < cap && reader.next(); ++i) {
  }
  (void)reader.warnings();
  (void)reader.describe();
}

/// A directory of this process, removed at exit (harnesses whose loader takes a path write files in it).
inline const std::filesystem::path& temp_dir()
{
  static const std::filesystem::path dir = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "colocsim-fuzz-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) std::abort();
    static std::filesystem::path created = pattern;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(created, ec);
    });
    return created;
  }();
  return dir;
}

/// Writes `bytes` to `path` (truncating).
inline void write_file(const std::filesystem::path& path, std::string_view bytes)
{
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) std::abort();
}

/// Copies the fixture `name` of tests/data/<sub> (COLOCSIM_FUZZ_DATA, set by CMake) into temp_dir().
inline void copy_fixture(const std::string& sub, const std::string& name)
{
  std::filesystem::copy_file(std::filesystem::path(COLOCSIM_FUZZ_DATA) / sub / name, temp_dir() / name,
                             std::filesystem::copy_options::overwrite_existing);
}

/// The scenario a fuzzed sweep spec runs (`scenario: base.yaml`) and the files it names, copied into
/// temp_dir() (the sweep, slurm_script and sweep_collect harnesses).
inline void copy_sweep_fixtures()
{
  for (const char* f : {"base.yaml", "platform-1x2.yaml", "calibration-test.yaml", "profiles-test.yaml",
                        "pair.csv", "device-test.yaml"})
    copy_fixture("sim", f);
}

} // namespace colocsim::fuzz
