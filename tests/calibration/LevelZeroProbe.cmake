# `colocsim calibrate run --backend level-zero --probe`: 0 with a GPU driver, 3 and a message naming Level
# Zero without one (this CI machine), 4 when the backend is not in this build. Anything else fails.
execute_process(COMMAND ${COLOCSIM} calibrate run --backend level-zero --probe RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "exit ${rc}: ${out}${err}")
if(rc EQUAL 3)
  string(FIND "${err}" "Level Zero: zeInit" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "exit 3 without the Level Zero message: ${err}")
  endif()
elseif(rc EQUAL 4)
  string(FIND "${err}" "not in this build" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "exit 4 without saying why: ${err}")
  endif()
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "unexpected exit status ${rc}")
endif()
