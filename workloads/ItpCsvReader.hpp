#pragma once
// Microsoft ITP cluster traces (ElasticFlow, ASPLOS'23; microsoft/elasticflow-traces, MIT;
// docs/formats/itp-csv.md): `job_id,submission_time,duration,num_gpu` (raw/clusterNN.csv), seconds from the
// start of the collection. The ElasticFlow variant's extra columns (num_iteration, model_name, deadline,
// batch_size, ...: synthetic) are accepted; `model_name` becomes the job's profile when a mapping names it
// (e.g. "resnet50=resnet50-train-bs32,bert=bert-base-train-bs32"), otherwise the scenario's default
// profile applies. Streaming; rows must be in non-decreasing submission order.
#include "workloads/CsvLines.hpp"
#include "workloads/JobReader.hpp"

#include <istream>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace colocsim {

class ItpCsvReader final : public JobReader {
public:
  ItpCsvReader(std::istream& in, std::string file_name,
               std::map<std::string, std::string> model_profiles = {});
  std::optional<Job> next() override;

private:
  LineReader in_; ///< the stream's lines (CsvLines.hpp)
  std::string file_;
  std::map<std::string, std::string> model_profiles_;
  int line_ = 0;
  std::size_t columns_ = 0;
  int id_ = -1, submit_ = -1, duration_ = -1, gpus_ = -1, model_ = -1;
  double last_submit_ = -1e300;
  std::string last_submit_text_; ///< the previous row's submission_time as written (messages)
};

std::unique_ptr<JobReader> open_itp_csv(const std::string& path,
                                        std::map<std::string, std::string> model_profiles = {});

/// Parses "model=profile,model=profile" (a `--profile-map` / workload.profile_map value).
std::map<std::string, std::string> parse_profile_map(const std::string& text, const SourceLocation& where);

} // namespace colocsim
