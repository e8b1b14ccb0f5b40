#pragma once
// Alibaba cluster-trace-gpu-v2020 (PAI; Weng et al., NSDI'22; docs/formats/alibaba-pai.md), from the
// published schema: the CSVs have no header row.
//   pai_task_table:
//   job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type pai_job_table:
//   job_name,inst_id,user,status,start_time,end_time
// The tables themselves are not obtainable here; the reader is tested on a small synthetic fixture that
// follows the schema exactly (tests/data/workloads/pai/, labelled as synthetic).
//
// Task table (the one with resources), one Job per task: id ← job_name/task_name; submit ← start_time (the
// task's launch; the job table's start_time is the submission); duration ← end_time − start_time; plan_gpu
// (percent of one GPU per instance) → per instance ceil(plan_gpu/100) devices at gpu_milli =
// plan_gpu·10 / that count, devices = inst_num × that; gpu_types ← gpu_type; trace_class ← task_name.
// Job table, one Job per job: submit ← start_time, duration ← end_time − start_time, devices ←
// PaiOptions::job_devices (the table has no resources). Rules (counted in warnings()): rows without an
// end_time or with status Running/Waiting are skipped (never finished in the trace); tasks with
// plan_gpu 0 or empty (CPU-only) are skipped; Failed rows are replayed unless status=terminated.
// Lines starting with '#' are comments (a colocsim extension, used to label fixtures).
#include "workloads/CsvLines.hpp"
#include "workloads/JobReader.hpp"
#include "workloads/ReorderWindow.hpp"

#include <istream>
#include <memory>
#include <string>
#include <vector>

namespace colocsim {

enum class PaiTable { AUTO, TASK, JOB };

struct PaiOptions {
  PaiTable table = PaiTable::AUTO; ///< AUTO: 10 fields → task table, 6 → job table
  bool terminated_only = false;    ///< keep only status Terminated (the successful ones)
  int job_devices = 1;             ///< job table: devices of every job
  /// Accepted gpu_type values (the machine table's types; MISC = K40m/K80/M60).
  std::vector<std::string> gpu_types{"MISC", "P100", "T4", "V100", "V100M32"};
  std::size_t reorder_window = DEFAULT_REORDER_WINDOW;
};

class PaiReader final : public JobReader {
public:
  PaiReader(std::istream& in, std::string file_name, PaiOptions options = {});
  std::optional<Job> next() override;
  std::vector<std::string> warnings() const override;
  PaiTable table() const { return table_; } ///< known after the first row (AUTO before)

private:
  bool read_row();
  bool next_line(); ///< next line that is not a '#' comment

  std::string file_;
  PaiOptions options_;
  CsvLines csv_;
  PaiTable table_;
  ReorderWindow window_;
  bool eof_ = false;
  std::size_t unfinished_ = 0, cpu_only_ = 0, failed_skipped_ = 0, zero_runtime_ = 0;
};

std::unique_ptr<JobReader> open_pai(const std::string& path, PaiOptions options = {});

} // namespace colocsim
