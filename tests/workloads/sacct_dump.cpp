// colocsim_sacct_dump FILE: reads FILE with the sacct reader (open_sacct) and prints what it made of it, so
// that a shell test can compare it with what it submitted to a real Slurm (SacctReal.sh). One line per job:
//   job|ID|SUBMIT_S|DURATION_S|DEVICES|GPU_MILLI|GPU_TYPES|TRACE_STATUS|REQUESTED_S|USER|PARTITION
// then `describe|TEXT` and one `warning|TEXT` per warning. Exits 1 (with the message on stderr) if the reader
// rejects the file, 2 on a usage error.
#include "workloads/SacctReader.hpp"

#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv)
{
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE  (sacct --parsable2 output)\n", argv[0]);
    return 2;
  }
  try {
    auto reader = colocsim::open_sacct(argv[1]);
    while (auto job = reader->next())
      std::printf("job|%s|%.0f|%.0f|%d|%d|%s|%s|%.0f|%s|%s\n", job->id.c_str(), job->submit_s,
                  job->duration_s, job->devices, job->gpu_milli, job->gpu_types.c_str(),
                  job->trace_status.c_str(), job->requested_s, job->user.c_str(), job->trace_class.c_str());
    std::printf("describe|%s\n", reader->describe().c_str());
    for (const auto& w : reader->warnings())
      std::printf("warning|%s\n", w.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
