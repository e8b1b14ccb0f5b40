# Runs calibration/tools/import_gavel.py on tests/data/calibration/gavel/simulation_throughputs-slice.json
# and checks that it writes tests/data/calibration/gavel/slice-v100.yaml byte for byte and prints the
# summary of the slice. Arguments: PYTHON, SOURCE_DIR, WORK_DIR.
set(data "${SOURCE_DIR}/tests/data/calibration/gavel")
file(MAKE_DIRECTORY "${WORK_DIR}")
execute_process(
  COMMAND "${PYTHON}" "${SOURCE_DIR}/calibration/tools/import_gavel.py" "${data}/simulation_throughputs-slice.json"
          -o "${WORK_DIR}/slice-v100.yaml" --name gavel-slice
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "import_gavel.py failed (${rc}):\n${out}${err}")
endif()
message(STATUS "${out}")
foreach(expected "7 job types, 35 ordered pairs used, 11 failed pairs (throughput 0) left out, 3 pairs equal"
                 "min 1.000, median 1.548, max 4.873")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the summary lacks '${expected}'")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK_DIR}/slice-v100.yaml" "${data}/slice-v100.yaml"
                RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  message(FATAL_ERROR "${WORK_DIR}/slice-v100.yaml differs from ${data}/slice-v100.yaml: rerun the tool and "
                      "review the change")
endif()
