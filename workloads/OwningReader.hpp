#pragma once
// The file-owning form of a stream reader: opens the trace file (open_input_file: one wording of the open
// errors for every format) and hands the stream to the reader, which keeps a reference to it. Every
// open_<format>(path, ...) returns one of these.
#include "workloads/CsvLines.hpp"
#include "workloads/JobReader.hpp"

#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace colocsim {

/// `Reader` (a JobReader constructed from (std::istream&, path, args...)) reading the file at `path`, which
/// this object opens and owns. Forwards every JobReader call to the reader.
template <class Reader> class OwningReader final : public JobReader {
public:
  template <class... Args>
  explicit OwningReader(const std::string& path, Args&&... args)
      : in_(open_input_file(path, "trace file")), reader_(in_, path, std::forward<Args>(args)...)
  {
  }
  std::optional<Job> next() override { return reader_.next(); }
  std::vector<std::string> warnings() const override { return reader_.warnings(); }
  std::string describe() const override { return reader_.describe(); }
  bool may_have_dependencies() const override { return reader_.may_have_dependencies(); }

private:
  std::ifstream in_; // declared before reader_, which keeps a reference to it
  Reader reader_;
};

} // namespace colocsim
