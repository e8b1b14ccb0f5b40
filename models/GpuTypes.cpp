#include "models/GpuTypes.hpp"

namespace colocsim {

std::vector<std::string_view> gpu_type_names(std::string_view text)
{
  std::vector<std::string_view> names;
  any_gpu_type(text, [&](std::string_view name) {
    names.push_back(name);
    return false;
  });
  return names;
}

bool gpu_types_list(std::string_view text, std::string_view name)
{
  return any_gpu_type(text, [&](std::string_view n) { return n == name; });
}

bool gpu_types_well_formed(std::string_view text)
{
  return !text.empty() && !any_gpu_type(text, [](std::string_view name) {
    return name.empty() || name.find_first_of(" \t") != std::string_view::npos;
  });
}

} // namespace colocsim
