# End-to-end calibration on the OpenCL backend (pocl on the CI machine): measure → fit → check → simulate.
#   cmake -DCOLOCSIM=<colocsim binary> -DWORK_DIR=<scratch dir> -DCHECK_OUTPUTS=<checker> -P EndToEnd.cmake
# Checks each step's output, not only its exit status, and parses every CSV and JSON file it wrote strictly
# (CHECK_OUTPUTS: tests/support/check_outputs.cpp); prints the prediction errors and wall times.
# Prints E2E-SKIPPED (the test's SKIP_REGULAR_EXPRESSION) when no OpenCL platform is present.
cmake_policy(SET CMP0054 NEW) # if(x STREQUAL "held_out") compares with the text, not with a variable of that name
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(step expect_rc)
  string(TIMESTAMP t0 "%s")
  execute_process(COMMAND ${COLOCSIM} ${ARGN} WORKING_DIRECTORY "${WORK_DIR}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(TIMESTAMP t1 "%s")
  math(EXPR dt "${t1} - ${t0}")
  message(STATUS "colocsim ${ARGN}: exit ${rc} after ${dt} s")
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "expected exit status ${expect_rc}, got ${rc}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

function(expect text haystack what)
  string(FIND "${haystack}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: '${text}' not found in:\n${haystack}")
  endif()
endfunction()

execute_process(COMMAND ${COLOCSIM} calibrate run --backend opencl --probe RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 3 OR rc EQUAL 4)
  message("E2E-SKIPPED: ${err}")
  return()
endif()
set(probe "${out}")

# A core the workers cannot be pinned to is a usage error naming the allowed ones (pocl's CPU device; a GPU
# platform has nothing to pin).
if(probe MATCHES "Portable Computing Language")
  execute_process(COMMAND ${COLOCSIM} calibrate run --backend opencl --quick --pin-cpu 4095 --plan
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "--pin-cpu 4095: this process may not run on that core; expected one of [0-9]")
    message(FATAL_ERROR "--pin-cpu 4095: expected exit status 2 naming the allowed cores, got ${rc}:\n${err}")
  endif()
endif()

# 1. Measure: the quick plan is 39 runs (13 solo, 20 fit co-runs, 6 held-out), 67 rows, three times (117
# runs, 201 rows). The workers of the CPU device are pinned to one core, one pocl thread each, each in its
# own autogroup at nice -20 (Microbenchmark.hpp): the notes say whether the host allowed it.
step(0 calibrate run --backend opencl --quick -o measurements.csv)
expect("wrote 201 rows (117 runs) to measurements.csv" "${out}" "calibrate run")
expect("measured 117 runs in" "${err}" "calibrate run progress")
file(STRINGS "${WORK_DIR}/measurements.csv" lines)
list(LENGTH lines n)
if(NOT n EQUAL 202)
  message(FATAL_ERROR "measurements.csv has ${n} lines; expected a header and 201 rows")
endif()
file(READ "${WORK_DIR}/measurements.csv" csv_text)
string(REGEX MATCH "pin=cpu[0-9]+;nice[-=0-9a-zA-Z()]+" isolation "${csv_text}")
message(STATUS "worker isolation: ${isolation}")
step(2 calibrate run --backend opencl --quick -o measurements.csv)
expect("exists; use --force" "${err}" "calibrate run must not overwrite")

# 2. Fit: θ and ε and table cells are measured; the power curve is kept (no energy counter in CI) and
# the report says why.
step(0 calibrate fit measurements.csv -o fitted.yaml --name pocl-ci --report fit-report.txt)
expect("θ = " "${out}" "fit report")
expect("ε = " "${out}" "fit report")
expect("T[C][C] = " "${out}" "fit report")
file(READ "${WORK_DIR}/fitted.yaml" yaml)
expect("format: colocsim-calibration/1" "${yaml}" "fitted.yaml")
expect("tag: measured-by-microbenchmark" "${yaml}" "fitted.yaml")
expect("Measured with the opencl backend" "${yaml}" "fitted.yaml")
step(2 calibrate fit measurements.csv -o fitted.yaml)
expect("exists; use --force" "${err}" "calibrate fit must not overwrite")

# 3. Check the fit on the held-out co-runs (4 mixed-duty pairs, 2 triples: 14 jobs; an impossible reading,
# a job faster than 0.8 x solo, is left out, so at least 10 must remain) and in sample, on the fit set.
# The gates tell a broken pipeline from a noisy host; they are not an accuracy target: the accuracy on a
# shared CPU depends on the host and its load, and calibration/README.md ("Accuracy on a shared CPU") keeps
# it per host. Measured with correct code, 2-core Debian 12 VMs, pocl 3.1, `--quick`:
#                                   held-out mean  median     x trivial  fit-set bias  fit-set RMS / null's
#   host A, load 0.8-1.9 (3 campaigns)  2.7-4.8 %  2.2-4.4 %  0.10-0.17  +0.7..+1.0 %
#   host A, spin loops + copier (1)         2.2 %      1.6 %             +0.4 %
#   host B, fresh machine (2)               9.8 %             0.40
#   host C, load 11-17 (7 builds; 6)   8.0-26.4 %  2.5-11.6 %  0.29-0.76  +0.7..+10.2 %  0.45-0.91
#   host C, load ~8 (2 builds + suite; 1)  36.9 %     28.7 %  1.03       +12.2 %        0.987
# and with faults planted on the same measurements (hosts A, C):
#   θ and ε swapped in the fitted file   79-124 %   80-104 %   2.3-3.7    +68..+102 %    > 2
#   the fit lost (θ = ε = 0, cells 1)     9-18 %     4-9 %               -3..-27 %      1 (it is the null)
# and a campaign of its own without worker isolation (--pin-cpu none --nice none): host A, load ~1: 25.1 %,
# 0.96 x; host C, load 13-16: 40.7 %, 1.63 x.
# Under heavy load a correct campaign (26.4-36.9 %, 0.76-1.03 x, fit-set bias +10.2..+12.2 %) scores like a
# broken one on a quiet host (no isolation: 25.1 %, 0.96 x; lost fit: bias -16 %), so accuracy gates can
# only catch what no load can imitate:
#   held-out: mean 50 %, median 40 %, at most 1.5 x the better trivial predictor (1.0 x failed a correct
#     campaign at 1.03 x) - the swap fails every one (1.6x, 2x, 1.5x beyond), correct code stays 1.4x, 1.4x
#     and 1.5x under them;
#   fit set: bias ±25 %, mean 40 %, and an RMS error below the null model's (θ = ε = 0, every fitted table
#     cell 1: the time-slice sharing alone) on the same rows, to the report's 0.1 %. Least squares on these
#     rows cannot do worse than the null model, which is one of the candidates it fits over; the lost fit IS
#     the null model, equal to it, and fails; correct code scored 0.45-0.987 of it (0.99 failed nothing yet,
#     but left 0.3 % of margin).
#   the isolation, which no accuracy gate can see under load, is checked directly (3a).
# Both faults are planted on this run's measurements (3b): the test fails if the gates let either through.
set(null_yaml "${WORK_DIR}/null-model.yaml")
set(num "[-+0-9.eE]+")
file(READ "${WORK_DIR}/fitted.yaml" fitted)
string(REGEX MATCH "collision:\n    value: ${num}" theta_line "${fitted}")
string(REGEX MATCH "switch_overhead:\n    value: ${num}" eps_line "${fitted}")
if(theta_line STREQUAL "" OR eps_line STREQUAL "")
  message(FATAL_ERROR "fitted.yaml: time_slice collision / switch_overhead values not found")
endif()
string(REPLACE "${theta_line}" "collision:\n    value: 0" null "${fitted}")
string(REPLACE "${eps_line}" "switch_overhead:\n    value: 0" null "${null}")
string(REGEX REPLACE "{value: [0-9.]+, tag: measured-by-microbenchmark" "{value: 1, tag: measured-by-microbenchmark"
                     null "${null}")
file(WRITE "${null_yaml}" "${null}")

# check_calibration(FILE FAILED_VAR): runs the gates on FILE; FAILED_VAR gets the gates it failed.
function(check_calibration yaml failed_var)
  set(failed "")
  set(held_out --max-error 0.50 --max-median-error 0.40 --max-baseline-ratio 1.5)
  set(fit_set --set fit --max-bias 0.25 --max-error 0.40)
  foreach(gates held_out fit_set)
    execute_process(COMMAND ${COLOCSIM} calibrate check measurements.csv --calibration "${yaml}" ${${gates}}
                    WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    string(REGEX MATCH "overall slowdown error: [^\n]*" summary "${out}")
    message(STATUS "${yaml}, ${gates}: exit ${rc}: ${summary} ${err}")
    if(rc EQUAL 1)
      list(APPEND failed ${gates})
    elseif(NOT rc EQUAL 0)
      message(FATAL_ERROR "calibrate check ${yaml}: exit ${rc}:\n${out}${err}")
    endif()
    if(gates STREQUAL "held_out" AND NOT out MATCHES "overall slowdown error: 1[0-4] jobs")
      message(FATAL_ERROR "calibrate check: fewer than 10 of the 14 held-out jobs were checked:\n${out}")
    endif()
  endforeach()
  # in-sample RMS against the null model's, in tenths of a percent (CMake's math has no floating point)
  foreach(model yaml null_yaml)
    execute_process(COMMAND ${COLOCSIM} calibrate check measurements.csv --calibration "${${model}}" --set fit
                    WORKING_DIRECTORY "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT out MATCHES "overall slowdown error: [^\n]*RMS ([0-9]+)\\.([0-9])%")
      message(FATAL_ERROR "calibrate check --set fit: no RMS in its report (exit ${rc}):\n${out}${err}")
    endif()
    set(rms_${model} "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
  endforeach()
  message(STATUS "${yaml}: fit-set RMS ${rms_yaml}/1000 against the null model's ${rms_null_yaml}/1000")
  if(NOT rms_yaml LESS rms_null_yaml)
    list(APPEND failed fit_set_vs_null)
  endif()
  set(${failed_var} "${failed}" PARENT_SCOPE)
endfunction()

if(BUILD_TYPE STREQUAL "Debug")
  message(STATUS "Debug build: the accuracy gates are skipped (timings of a sanitised build)")
  step(0 calibrate check measurements.csv --calibration "${WORK_DIR}/fitted.yaml")
  step(0 calibrate check measurements.csv --calibration "${WORK_DIR}/fitted.yaml" --set fit)
else()
  check_calibration("${WORK_DIR}/fitted.yaml" failed)
  if(failed)
    message(FATAL_ERROR "the fitted calibration failed the gates: ${failed} (the lines above say by how much)")
  endif()
endif()

# 3a. The workers of pocl's CPU device were isolated: every row says it was pinned to one core, and where
# the host also let them run at nice -20, two busy workers (duty 1, no sleep) shared that one core: the
# median over the fit set's busy pairs of their two CPU shares (cpu_util) adds up to 0.8-1.15. Measured:
# medians 0.98-0.99 pinned at load 11-17 (pairs 0.95-1.00); unpinned 0.25 at load 14 (each worker sharing
# a core with the compilers); on a quiet 2-core host two unpinned workers would hold a core each (about 2).
if(probe MATCHES "Portable Computing Language")
  cmake_policy(SET CMP0007 NEW) # list(GET) counts the empty fields of the CSV
  file(READ "${WORK_DIR}/measurements.csv" text)
  string(REPLACE ";" "|" text "${text}") # the notes hold ';', CMake's list separator
  string(STRIP "${text}" text)
  string(REPLACE "\n" ";" rows "${text}")
  list(REMOVE_AT rows 0)
  set(sums "")
  set(niced TRUE)
  foreach(row IN LISTS rows)
    if(NOT row MATCHES "pin=cpu[0-9]+")
      message(FATAL_ERROR "measurements.csv: a row without pin=cpuN in its notes (workers not pinned):\n${row}")
    endif()
    if(NOT row MATCHES "nice=-20")
      set(niced FALSE)
    endif()
    string(REPLACE "," ";" f "${row}")
    list(GET f 0 run)
    list(GET f 1 rep)
    list(GET f 2 set)
    list(GET f 3 kind)
    list(GET f 9 procs)
    list(GET f 16 sleep)
    list(GET f 29 util)
    if(set STREQUAL "fit" AND kind STREQUAL "corun" AND procs STREQUAL "2" AND sleep STREQUAL "0")
      # cpu_util in thousandths, in integers (CMake's math has no floating point)
      if(NOT util MATCHES "^([0-9]+)\\.?([0-9]*)$")
        message(FATAL_ERROR "measurements.csv: cpu_util '${util}' is not a number:\n${row}")
      endif()
      set(whole "${CMAKE_MATCH_1}")
      set(frac "${CMAKE_MATCH_2}000")
      string(SUBSTRING "${frac}" 0 3 frac)
      string(REGEX REPLACE "^0+([0-9])" "\\1" frac "${frac}")
      math(EXPR milli "${whole} * 1000 + ${frac}")
      set(key "r${run}_${rep}")
      if(DEFINED share_${key})
        math(EXPR s "${share_${key}} + ${milli}")
        list(APPEND sums ${s})
      else()
        set(share_${key} ${milli})
      endif()
    endif()
  endforeach()
  list(LENGTH sums n_pairs)
  if(niced AND n_pairs GREATER 0)
    list(SORT sums COMPARE NATURAL)
    math(EXPR mid "${n_pairs} / 2")
    list(GET sums ${mid} median_sum)
    message(STATUS "busy pairs: median CPU share sum ${median_sum}/1000 over ${n_pairs} pairs (${sums})")
    if(median_sum LESS 800 OR median_sum GREATER 1150)
      message(FATAL_ERROR "two busy pinned workers should share one core (CPU shares adding up to 0.8-1.15); "
                          "median ${median_sum}/1000 over ${n_pairs} pairs: the workers are not isolated")
    endif()
  elseif(n_pairs EQUAL 0)
    message(FATAL_ERROR "measurements.csv: no busy co-run pair in the fit set to check the isolation with")
  else()
    message(STATUS "workers pinned but not at nice -20 (the host refused it): the core-sharing check is skipped")
  endif()
endif()

# 3b. The planted faults fail the gates on these measurements: θ and ε swapped, and the fit lost (the null
# model). A fault the gates let through on this host fails the test: gates that cannot tell a broken fit
# from a good one prove nothing.
if(NOT BUILD_TYPE STREQUAL "Debug")
  string(REGEX REPLACE ".*value: " "" theta "${theta_line}")
  string(REGEX REPLACE ".*value: " "" eps "${eps_line}")
  # ε is a fraction of the slice, at most 1; θ is not bounded by 1 (a fit gave 1.18 on a CI host): a θ above
  # 1 plants ε = 1, the largest the format takes (a file the loader refuses would test the loader, not the
  # gates).
  set(planted_eps "${theta}")
  if(theta GREATER 1)
    set(planted_eps 1)
  endif()
  string(REPLACE "${theta_line}" "collision:\n    value: ${eps}" swapped "${fitted}")
  string(REPLACE "${eps_line}" "switch_overhead:\n    value: ${planted_eps}" swapped "${swapped}")
  file(WRITE "${WORK_DIR}/planted-swap.yaml" "${swapped}")
  foreach(fault planted-swap null-model)
    check_calibration("${WORK_DIR}/${fault}.yaml" failed)
    if(NOT failed)
      message(FATAL_ERROR "planted fault '${fault}' passed every gate on these measurements")
    endif()
    message(STATUS "planted fault '${fault}' caught by: ${failed}")
  endforeach()
endif()

# 4. Simulate with the fitted calibration: the default scenario runs with it.
step(0 run --set "calibration=${WORK_DIR}/fitted.yaml" -o sim --quiet)
file(READ "${WORK_DIR}/sim/summary.json" summary_json)
expect("\"calibration\": \"${WORK_DIR}/fitted.yaml\"" "${summary_json}" "summary.json names the calibration")
string(REGEX MATCH "\"makespan_s\": [0-9.]+" makespan "${summary_json}")
string(REGEX MATCH "\"corun_slowdown_mean\": [0-9.]+" corun "${summary_json}")
message(STATUS "default scenario with the fitted calibration: ${makespan}, ${corun}")
# 5. Every CSV and JSON file the steps wrote parses strictly (measurements.csv, sim/).
execute_process(COMMAND ${CHECK_OUTPUTS} "${WORK_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "outputs not strict:\n${out}${err}")
endif()
message(STATUS "end to end OK; measurements, fitted.yaml, fit-report.txt and sim/ in ${WORK_DIR}")
