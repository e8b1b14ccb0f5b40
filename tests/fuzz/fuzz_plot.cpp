// libFuzzer harness: the run readers of `colocsim plot` (cli/CliPlot.cpp: jobs.csv, timeseries.csv and
// summary.json, plain or gzip-compressed; tests/fuzz/README.md). The readers are internal to the command, so
// the harness runs `colocsim plot DIR --force` on a directory holding the bytes as one of the run's files,
// chosen by the first byte:
//   0 jobs.csv, 1 timeseries.csv (the bytes as they are);
//   2 jobs.csv.gz, 3 timeseries.csv.gz: bytes that start with gzip's magic are written as they are (cut or
//     corrupt streams), any others gzip-compressed first (so that the text behind a valid stream is fuzzed);
//   4 summary.json beside a fixed timeseries.csv (the device count of the utilisation figure).
// The figures are drawn into the same directory (bounded by their pixels, whatever the rows).
#include "base/Gzip.hpp"
#include "cli/CliCommands.hpp"
#include "tests/fuzz/FuzzCommon.hpp"

#include <sstream>

namespace {
const char* const SERIES =
    "t_s,device_power_w,node_power_w,total_power_w,busy_devices,running_jobs,waiting_jobs\n"
    "0,100,500,600,1,1,1\n10,200,500,700,2,2,1\n100,50,500,550,0,0,0\n";
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace colocsim;
  if (size == 0) return 0;
  const auto dir = fuzz::temp_dir() / "run";
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir);
  const std::string_view bytes = fuzz::as_text(data + 1, size - 1);
  switch (data[0] % 5) {
  case 0:
    fuzz::write_file(dir / "jobs.csv", bytes);
    break;
  case 1:
    fuzz::write_file(dir / "timeseries.csv", bytes);
    break;
  case 2:
  case 3: {
    const auto file = dir / (data[0] % 5 == 2 ? "jobs.csv.gz" : "timeseries.csv.gz");
    if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
        static_cast<unsigned char>(bytes[1]) == 0x8b) {
      fuzz::write_file(file, bytes);
    } else {
      GzipOfstream out(file.string());
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      if (!out.close()) std::abort();
    }
    break;
  }
  default:
    fuzz::write_file(dir / "timeseries.csv", SERIES);
    fuzz::write_file(dir / "summary.json", bytes);
  }
  std::ostringstream out;
  try {
    fuzz::expect_input_errors([&] { (void)cmd_plot({dir.string(), "--force"}, out); });
  } catch (const UsageError&) { // exit status 2, as for InputError (a window outside the run)
  }
  return 0;
}
