#include "models/ResourceSignature.hpp"

#include <array>

namespace colocsim {

namespace {
constexpr std::array<std::string_view, JOB_CLASS_COUNT> NAMES{"C", "X", "M", "MS", "L"};
}

std::string job_class_list()
{
  std::string out;
  for (int i = 0; i < JOB_CLASS_COUNT; ++i) {
    if (i > 0) out += ", ";
    out += to_string(static_cast<JobClass>(i));
  }
  return out;
}

std::string_view to_string(JobClass c)
{
  return NAMES[static_cast<int>(c)];
}

std::optional<JobClass> parse_job_class(std::string_view text)
{
  for (int i = 0; i < JOB_CLASS_COUNT; ++i)
    if (NAMES[i] == text) return static_cast<JobClass>(i);
  return std::nullopt;
}

} // namespace colocsim
