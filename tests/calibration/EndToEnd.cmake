# End-to-end calibration on the OpenCL backend (pocl on the CI machine): measure → fit → check → simulate.
#   cmake -DCOLOCSIM=<colocsim binary> -DWORK_DIR=<scratch dir> -DCHECK_OUTPUTS=<checker> -P EndToEnd.cmake
# Checks each step's output, not only its exit status, and parses every CSV and JSON file it wrote strictly
# (CHECK_OUTPUTS: tests/support/check_outputs.cpp); prints the prediction errors and wall times.
# Prints E2E-SKIPPED (the test's SKIP_REGULAR_EXPRESSION) when no OpenCL platform is present.
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

# 3. Check the held-out co-runs (4 mixed-duty pairs, 2 triples: 14 jobs; an impossible reading, a job
# faster than 0.8 x solo, would be left out, so at least 10 must remain). Measured on this 2-core host
# (pocl 3.1, Linux 6.18, HZ=250) lightly loaded (load 0.8-1.9: this test alone on one core, as in CI where
# it runs serially), three campaigns of `--quick`: mean |error| 3.5 %, 2.7 % and 4.8 %, median 2.6 %, 2.2 %
# and 4.4 %, max 10.6 %, 9.6 % and 10.3 %; the better trivial predictor (the fit set's mean slowdown)
# scored 27.5 %, 27.4 % and 27.7 %, so the model's error was 0.10-0.17 of it. Under load (three spin
# loops and a 256 MB memory copier on the host, load 2.3-4.8): mean 2.2 %, median 1.6 %. Bounds: mean 10 %
# and median 9 % (about twice the worst campaign) and at most 0.35 x the better trivial predictor.
# What brought the error down from 29 % (20-39 %; 36 % mean, 269 % max in a campaign before the changes):
# t_iter_s is the median of sub-window MEAN iteration times (a rate; the median of bimodal iteration
# times next to a co-runner that holds the core in turns was the fast mode), the quick pointer chase fits
# the core's private L2 (its 16 MB cycle lived in the last-level cache shared with the other core, and
# its solo time swung 1.5-9.2 ms), and under time-slice a job's pair excesses are averaged over its
# co-runners, not added (calibration/README.md). Regressions break the gates: θ and ε swapped in the
# fitted file (planted): mean 104.6 %, median 103.2 % (fails all three); without the isolation
# (--pin-cpu none --nice none): mean 25.1 %, median 19.8 %, 0.96 x the trivial predictor (fails all three).
if(BUILD_TYPE STREQUAL "Debug")
  message(STATUS "Debug build: the held-out accuracy gates are skipped (timings of a sanitised build)")
  step(0 calibrate check measurements.csv --calibration "${WORK_DIR}/fitted.yaml")
else()
  step(0 calibrate check measurements.csv --calibration "${WORK_DIR}/fitted.yaml" --max-error 0.1
       --max-median-error 0.09 --max-baseline-ratio 0.35)
  if(NOT out MATCHES "overall slowdown error: 1[0-4] jobs")
    message(FATAL_ERROR "calibrate check: fewer than 10 of the 14 held-out jobs were checked:\n${out}")
  endif()
endif()
string(REGEX MATCH "overall slowdown error: [^\n]*" summary "${out}")
message(STATUS "${summary}")
message(STATUS "check report:\n${out}")

# 3b. The fit set, in sample: one offset per class pair makes the fit unbiased on its own co-runs (measured
# in the three campaigns above: bias +0.7 %, +0.8 % and +1.0 %, mean |error| 5.3 %, 5.3 % and 5.6 %; under
# load +0.4 % and 4.0 %). Bounds: bias ±4 %, mean 12 %. Fitted coefficients that are lost (planted: θ, ε
# and every fitted table cell written as 0, 0 and 1: bias -15.8 %, mean 15.9 %) or mixed up (planted: θ
# and ε swapped) fail here or above; without the isolation the fit set gave bias +15.2 %, mean 18.5 %.
# The time-slice sharing alone predicts the held-out runs of this CPU well (the lost table: 3.2 %), so
# only the fit set can tell a lost table from a fitted one.
if(BUILD_TYPE STREQUAL "Debug")
  step(0 calibrate check measurements.csv --calibration "${WORK_DIR}/fitted.yaml" --set fit)
else()
  step(0 calibrate check measurements.csv --calibration "${WORK_DIR}/fitted.yaml" --set fit --max-bias 0.04
       --max-error 0.12)
endif()
string(REGEX MATCH "overall slowdown error: [^\n]*" summary "${out}")
message(STATUS "fit set: ${summary}")

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
