# CTest layering/engine-components-without-simgrid: the engine's components (sim/engine/: device physics, the
# meters, node power, the dependency graph...) include no SimGrid header, directly, so that each is tested
# alone and SimGrid stays the engine's (sim/Engine.cpp) and the network's. A header of sim/engine/ that
# included one would bring it into every component that includes it. -DSOURCE_DIR.
file(GLOB files RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/sim/engine/*.hpp" "${SOURCE_DIR}/sim/engine/*.cpp")
if(NOT files)
  message(FATAL_ERROR "no file found under ${SOURCE_DIR}/sim/engine/")
endif()
set(offenders "")
foreach(f IN LISTS files)
  file(STRINGS "${SOURCE_DIR}/${f}" lines)
  set(n 0)
  foreach(line IN LISTS lines)
    math(EXPR n "${n} + 1")
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*[<\"](simgrid|xbt)/")
      string(APPEND offenders "  ${f}:${n}: ${line}\n")
    endif()
  endforeach()
endforeach()
if(offenders)
  message(FATAL_ERROR "an engine component includes SimGrid (keep SimGrid in sim/Engine.cpp):\n${offenders}")
endif()
list(LENGTH files count)
message(STATUS "the ${count} files of sim/engine/ include no SimGrid header")
