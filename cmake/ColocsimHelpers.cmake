# Shared CMake helpers for colocsim's per-folder libraries.

# colocsim_warnings(<target>): the project's warning set.
function(colocsim_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wno-missing-field-initializers) # designated initializers leave defaulted members out on purpose
  if(COLOCSIM_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# colocsim_uses_std_regex(<source>...): sources that use <regex>. GCC 12 at -O1 and above (the dev preset builds
# at -O1 with the sanitizers) warns that libstdc++'s own std::function inside std::regex's automaton "may be used
# uninitialized" (-Wmaybe-uninitialized, a false positive inside the library's headers), which -Werror turns into
# an error; the warning is turned off for these files only.
function(colocsim_uses_std_regex)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    set_source_files_properties(${ARGN} DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" PROPERTIES COMPILE_OPTIONS
                                -Wno-maybe-uninitialized)
  endif()
endfunction()

# colocsim_embed(<target> <symbol> FILES <file>... BASE <dir>)
# Generates a source file that holds the text of each file, keyed by its path relative to BASE,
# and adds it to <target>. The files are read at build time, so editing one rebuilds the table.
function(colocsim_embed target symbol)
  cmake_parse_arguments(ARG "" "BASE" "FILES" ${ARGN})
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${symbol}.cpp")
  set(abs_files)
  foreach(f IN LISTS ARG_FILES)
    get_filename_component(a "${f}" ABSOLUTE)
    list(APPEND abs_files "${a}")
  endforeach()
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DSYMBOL=${symbol} -DBASE=${ARG_BASE}
            "-DFILES=${abs_files}" -P "${PROJECT_SOURCE_DIR}/cmake/EmbedFiles.cmake"
    DEPENDS ${abs_files} "${PROJECT_SOURCE_DIR}/cmake/EmbedFiles.cmake"
    COMMENT "Embedding data files into ${symbol}"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
  # Generated at build time: kept out of unity batches, so that a unity compile database (scripts/tidy.sh)
  # is complete before anything is built.
  set_source_files_properties("${out}" PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()

# colocsim_test_suite(<area> SOURCES <file>... LIBRARIES <target>... [DEFINITIONS <def>...])
# One Catch2 test executable colocsim_tests_<area>, each TEST_CASE registered with CTest as "<area>/<name>"
# (so each runs in its own process). Tests see the repository root as include path, COLOCSIM_SOURCE_DIR and
# COLOCSIM_TEST_DATA (tests/data).
function(colocsim_test_suite area)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES;DEFINITIONS" ${ARGN})
  set(target colocsim_tests_${area})
  add_executable(${target} ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE ${ARG_LIBRARIES} Catch2::Catch2WithMain)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_definitions(${target} PRIVATE
    COLOCSIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    COLOCSIM_TEST_DATA="${COLOCSIM_TEST_DATA}"
    ${ARG_DEFINITIONS})
  colocsim_warnings(${target})
  # Never a unity build (the dev preset turns CMAKE_UNITY_BUILD on for the libraries): the
  # test files define the same small helpers (sig(), a platform()) in their anonymous namespaces.
  set_target_properties(${target} PROPERTIES UNITY_BUILD OFF)
  # The test drivers are compiled at -O1 in the optimised configurations. The code under test, the libraries,
  # keeps -O3; the drivers' own code (Catch2's macros, the hand-worked cases) gains nothing from it but build
  # time (tests/sim/Engine_test.cpp: 18.8 s of CPU at -O3, 11.3 s at -O1, GCC 12).
  target_compile_options(${target} PRIVATE $<$<CONFIG:Release,RelWithDebInfo,MinSizeRel>:-O1>)
  # A test name with a ';' is cut there by CMake's list splitting and then matches no test case, which
  # Catch2 reports as success: fail such a test instead (and keep ';' out of TEST_CASE names).
  catch_discover_tests(${target} TEST_PREFIX "${area}/" PROPERTIES FAIL_REGULAR_EXPRESSION "No test cases matched")
endfunction()

# colocsim_add_experiment(<target> <test-name> <sources>...): an experiment driver (experiments/*/), linked to
# the engine, told its own folder (COLOCSIM_EXPERIMENT_DIR), and run with --check as CTest `experiments/<test-name>`.
function(colocsim_add_experiment target test_name)
  add_executable(${target} ${ARGN})
  target_link_libraries(${target} PRIVATE colocsim_sim colocsim_experiment_driver)
  target_compile_definitions(${target} PRIVATE COLOCSIM_EXPERIMENT_DIR="${CMAKE_CURRENT_SOURCE_DIR}")
  colocsim_warnings(${target})
  if(COLOCSIM_TESTS)
    add_test(NAME experiments/${test_name} COMMAND ${target} --check)
  endif()
endfunction()

# colocsim_include_root(<target> <folder> [HEADERS <header>...] [EXCLUDE <header>...] [SUBFOLDERS <sub>...])
# The layering, enforced (docs/architecture.md, Layering): a library publishes its headers through an include
# root of its own in the build tree, include-roots/<target>/<folder>/, which holds a symbolic link to each
# header it publishes (every *.hpp directly in <folder> and in each of its SUBFOLDERS, or only HEADERS, less
# EXCLUDE); the repository root is
# on no library's include path. `#include "<folder>/X.hpp"` keeps its spelling, and a library sees exactly the
# headers of the libraries it links (usage requirements follow target_link_libraries), so an include that
# crosses the layering fails to compile with "No such file". The glob is re-checked at build time
# (CONFIGURE_DEPENDS): a new header is published by the next build.
function(colocsim_include_root target folder)
  cmake_parse_arguments(ARG "" "" "HEADERS;EXCLUDE;SUBFOLDERS" ${ARGN})
  set(root "${PROJECT_BINARY_DIR}/include-roots/${target}")
  set(headers ${ARG_HEADERS})
  if(NOT headers)
    file(GLOB headers CONFIGURE_DEPENDS RELATIVE "${PROJECT_SOURCE_DIR}/${folder}" "${PROJECT_SOURCE_DIR}/${folder}/*.hpp")
    foreach(sub IN LISTS ARG_SUBFOLDERS)
      file(GLOB sub_headers CONFIGURE_DEPENDS RELATIVE "${PROJECT_SOURCE_DIR}/${folder}"
           "${PROJECT_SOURCE_DIR}/${folder}/${sub}/*.hpp")
      list(APPEND headers ${sub_headers})
    endforeach()
  endif()
  if(ARG_EXCLUDE)
    list(REMOVE_ITEM headers ${ARG_EXCLUDE})
  endif()
  file(REMOVE_RECURSE "${root}")
  file(MAKE_DIRECTORY "${root}/${folder}")
  foreach(header IN LISTS headers)
    if(NOT EXISTS "${PROJECT_SOURCE_DIR}/${folder}/${header}")
      message(FATAL_ERROR "colocsim_include_root(${target}): ${folder}/${header} does not exist")
    endif()
    get_filename_component(header_dir "${root}/${folder}/${header}" DIRECTORY)
    file(MAKE_DIRECTORY "${header_dir}")
    file(CREATE_LINK "${PROJECT_SOURCE_DIR}/${folder}/${header}" "${root}/${folder}/${header}" SYMBOLIC)
  endforeach()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} INTERFACE "$<BUILD_INTERFACE:${root}>")
  else()
    target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${root}>")
  endif()
endfunction()
