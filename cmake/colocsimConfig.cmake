# colocsim's CMake package, for out-of-tree policy plugins (policies/PluginApi.hpp, policies/README.md).
#   find_package(colocsim REQUIRED)
#   colocsim_add_policy_plugin(my_policy MyPolicy.cpp)      # → libmy_policy.so
#   colocsim run --policy-plugin build/libmy_policy.so --policy my-policy
# Provides: the INTERFACE target colocsim::policy_api (the installed headers, C++20), the function
# colocsim_add_policy_plugin(NAME SOURCES...), and colocsim_EXECUTABLE (the installed colocsim binary).
include(CMakeFindDependencyMacro)
find_dependency(yaml-cpp) # base/Yaml.hpp, included by the policy API headers

get_filename_component(_colocsim_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET colocsim::policy_api)
  add_library(colocsim::policy_api INTERFACE IMPORTED)
  set_target_properties(colocsim::policy_api PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_colocsim_prefix}/include/colocsim"
    INTERFACE_COMPILE_FEATURES cxx_std_20
    INTERFACE_LINK_LIBRARIES yaml-cpp)
endif()
set(colocsim_EXECUTABLE "${_colocsim_prefix}/bin/colocsim")

# A policy plugin: a MODULE library whose unresolved colocsim symbols (ParamSet, ...) are resolved from the
# colocsim executable when it loads the plugin. Build it with the compiler colocsim was built with.
function(colocsim_add_policy_plugin name)
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE colocsim::policy_api)
  target_compile_definitions(${name} PRIVATE COLOCSIM_PLUGIN_NAME="${name}")
  set_target_properties(${name} PROPERTIES CXX_EXTENSIONS OFF CXX_VISIBILITY_PRESET hidden)
endfunction()
