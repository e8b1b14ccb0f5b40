# Shared CMake helpers for colocsim's per-folder libraries.

# colocsim_warnings(<target>): the project's warning set.
function(colocsim_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wno-missing-field-initializers) # designated initializers leave defaulted members out on purpose
  if(COLOCSIM_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
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
endfunction()
