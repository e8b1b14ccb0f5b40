# CTest layering/libraries-compile-nothing-from-experiments: the CMakeLists.txt of the libraries (base, models,
# workloads, policies, calibration, calibration/microbenchmark, sim, cli) name no file under experiments/, so
# the program builds without the experiments folder (the embedded scenarios are sim/scenarios/). -DSOURCE_DIR.
set(offenders "")
foreach(dir base models workloads policies calibration calibration/microbenchmark sim cli)
  file(STRINGS "${SOURCE_DIR}/${dir}/CMakeLists.txt" lines)
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    string(REGEX REPLACE "#.*" "" code "${line}")
    if(code MATCHES "experiments/")
      string(APPEND offenders "  ${dir}/CMakeLists.txt:${n}: ${line}\n")
    endif()
  endforeach()
endforeach()
if(offenders)
  message(FATAL_ERROR "a library builds from experiments/ (move the file to the library's folder):\n${offenders}")
endif()
message(STATUS "no library CMakeLists.txt names a file under experiments/")
