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

# 1. Measure: the quick plan is 39 runs (13 solo, 20 fit co-runs, 6 held-out), 67 rows.
step(0 calibrate run --backend opencl --quick -o measurements.csv)
expect("wrote 67 rows (39 runs) to measurements.csv" "${out}" "calibrate run")
expect("measured 39 runs in" "${err}" "calibrate run progress")
file(STRINGS "${WORK_DIR}/measurements.csv" lines)
list(LENGTH lines n)
if(NOT n EQUAL 68)
  message(FATAL_ERROR "measurements.csv has ${n} lines; expected a header and 67 rows")
endif()
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

# 3. Check the held-out co-runs (4 mixed-duty pairs, 2 triples: 14 jobs). Measured on the 2-core CI
# machine shared with other builds (pocl, --quick): mean |error| 57.4 %, 50.5 %, 63.7 % and 133.4 % in four
# runs; in the last, one l2_triad co-run measured 0.28 times its solo time (its solo run was slowed by the
# host), which alone gave +646 %. A bound of 100 % failed at random, so it stays at 300 %: it catches only a
# model that is wrong by several times. Predicting no slowdown at all scored 59 % on the first run's
# observations, so this step cannot pin the fit's accuracy on a noisy CPU host; the fitter is checked on
# synthetic devices with known coefficients in tests/calibration/Fitter_test.cpp.
step(0 calibrate check measurements.csv --calibration "${WORK_DIR}/fitted.yaml" --max-error 3)
expect("overall slowdown error: 14 jobs" "${out}" "calibrate check")
string(REGEX MATCH "overall slowdown error: [^\n]*" summary "${out}")
message(STATUS "${summary}")
message(STATUS "check report:\n${out}")

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
