# Installs the build tree into WORK_DIR/prefix, checks the installed graph and user
# documentation, then, as a user of the installed package would and with no
# LD_LIBRARY_PATH: runs the installed tool on that graph (when it was built), and
# configures, builds and runs a find_package(geblas) consumer and a pkg-config consumer.
unset(ENV{LD_LIBRARY_PATH})
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run_checked what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${what}:\n${out}${err}")
  if(rc)
    message(FATAL_ERROR "${what} failed (${rc})")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run_checked("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# Which libdir the install used (lib or lib64 or lib/<triplet>): where geblas.pc went.
file(GLOB_RECURSE pc_files ${prefix}/*/geblas.pc)
list(LENGTH pc_files n_pc)
if(NOT n_pc EQUAL 1)
  message(FATAL_ERROR "expected one installed geblas.pc, found: ${pc_files}")
endif()
get_filename_component(pc_dir ${pc_files} DIRECTORY)

# The installed sonames must carry the version the config file promises; libgeblas
# loads libgeblas_omp_env (src/omp_env) from beside it.
foreach(lib libgeblas libgeblas_omp_env)
  file(GLOB sonames ${prefix}/*/${lib}.so.${EXPECT_SOVERSION} ${prefix}/*/*/${lib}.so.${EXPECT_SOVERSION})
  if(NOT sonames)
    message(FATAL_ERROR "no ${lib}.so.${EXPECT_SOVERSION} installed under ${prefix}")
  endif()
endforeach()

# The bundled graph and the user documentation (README.md and every docs/*.md, byte for
# byte; not the team's notes in docs/notes).
set(installed_graph ${prefix}/${DATA_DIR}/astro-ph-weighted.mtx.gz)
set(expected_files "${PROJECT_ROOT}/data/astro-ph-weighted.mtx.gz=${installed_graph}"
                   "${PROJECT_ROOT}/data/README.md=${prefix}/${DATA_DIR}/README.md"
                   "${PROJECT_ROOT}/README.md=${prefix}/${DOC_DIR}/README.md")
file(GLOB user_docs ${PROJECT_ROOT}/docs/*.md)
if(NOT user_docs)
  message(FATAL_ERROR "no docs/*.md under ${PROJECT_ROOT}: wrong PROJECT_ROOT")
endif()
foreach(doc ${user_docs})
  get_filename_component(name ${doc} NAME)
  list(APPEND expected_files "${doc}=${prefix}/${DOC_DIR}/${name}")
endforeach()
foreach(pair ${expected_files})
  string(REGEX MATCH "^([^=]+)=(.+)$" _ "${pair}")
  set(source_file ${CMAKE_MATCH_1})
  set(installed_file ${CMAKE_MATCH_2})
  if(NOT EXISTS ${installed_file})
    message(FATAL_ERROR "${source_file} was not installed to ${installed_file}")
  endif()
  file(SHA256 ${source_file} want)
  file(SHA256 ${installed_file} got)
  if(NOT want STREQUAL got)
    message(FATAL_ERROR "${installed_file} differs from ${source_file}")
  endif()
endforeach()
if(EXISTS ${prefix}/${DOC_DIR}/notes)
  message(FATAL_ERROR "docs/notes was installed to ${prefix}/${DOC_DIR}/notes; only user documentation belongs there")
endif()

# (1) The installed tool runs from anywhere (its run path finds the library).
if(EXPECT_TOOL)
  if(NOT EXISTS ${prefix}/bin/geblas)
    message(FATAL_ERROR "the tool was built but not installed to ${prefix}/bin/geblas")
  endif()
  run_checked("installed geblas --version" ${prefix}/bin/geblas --version)
  if(NOT last_output MATCHES "^geblas ${EXPECT_VERSION}\n$")
    message(FATAL_ERROR "geblas --version printed '${last_output}', expected 'geblas ${EXPECT_VERSION}'")
  endif()
  execute_process(COMMAND ${prefix}/bin/geblas info ${installed_graph} --no-progress
                  WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "installed geblas info:\n${out}${err}")
  if(rc OR NOT out MATCHES "shape: 16706 x 16706, entries: 242502")
    message(FATAL_ERROR "installed geblas info on ${installed_graph} failed (${rc}) or printed an unexpected shape")
  endif()
  # The help points to the installed documentation (the configured prefix's, which this
  # scratch install shares the layout of) and to the source tree's.
  run_checked("installed geblas --help" ${prefix}/bin/geblas --help)
  if(NOT last_output MATCHES "/${DOC_DIR}/CLI.md \\(installed\\)" OR NOT last_output MATCHES "docs/CLI.md in the geblas source tree")
    message(FATAL_ERROR "geblas --help does not point to ${DOC_DIR}/CLI.md and docs/CLI.md:\n${last_output}")
  endif()
endif()

# (2) A CMake consumer through find_package(geblas).
run_checked("configure the CMake consumer"
  ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release -DEXPECT_VERSION=${EXPECT_VERSION})
run_checked("build the CMake consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run_checked("run the CMake consumer" ${WORK_DIR}/build/consumer)

# geblasConfigVersion.cmake must agree with the soname: while the major is 0 another
# minor is incompatible (0.x -> libgeblas.so.0.x), so asking for the next minor fails.
string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _ "${EXPECT_VERSION}")
math(EXPR next_minor "${CMAKE_MATCH_2} + 1")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build-next -G ${GENERATOR}
                        -DCMAKE_PREFIX_PATH=${prefix} -DGEBLAS_WANT=${CMAKE_MATCH_1}.${next_minor}
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc)
  message(FATAL_ERROR "find_package(geblas ${CMAKE_MATCH_1}.${next_minor}) accepted geblas ${EXPECT_VERSION}")
endif()

# (3) A pkg-config consumer: one compiler command from `pkg-config --cflags --libs geblas`.
# Where pkg-config is not installed (the GPU machine has no apt) the .pc file is
# evaluated here the way pkg-config does (variables, Cflags, Libs), so its content is
# still checked; the log says which was used.
if(NOT NO_PKG_CONFIG)  # -DNO_PKG_CONFIG=ON exercises the fallback
  find_program(PKG_CONFIG NAMES pkg-config pkgconf)
endif()
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} ${pc_dir})
  run_checked("pkg-config --modversion geblas" ${PKG_CONFIG} --modversion geblas)
  string(STRIP "${last_output}" pc_version)
  run_checked("pkg-config --cflags --libs geblas" ${PKG_CONFIG} --cflags --libs geblas)
  string(STRIP "${last_output}" pc_flags)
else()
  message(STATUS "pkg-config is not installed: evaluating ${pc_files} here instead")
  file(STRINGS ${pc_files} pc_lines)
  set(pc_vars "pcfiledir=${pc_dir}")
  foreach(line ${pc_lines})
    # Expand ${var} with the variables seen so far.
    foreach(kv ${pc_vars})
      string(REGEX MATCH "^([^=]+)=(.*)$" _ "${kv}")
      string(REPLACE "\${${CMAKE_MATCH_1}}" "${CMAKE_MATCH_2}" line "${line}")
    endforeach()
    if(line MATCHES "^([A-Za-z_]+)=(.*)$")
      list(APPEND pc_vars "${CMAKE_MATCH_1}=${CMAKE_MATCH_2}")
    elseif(line MATCHES "^Version: *(.*)$")
      set(pc_version "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^Cflags: *(.*)$")
      set(pc_cflags "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^Libs: *(.*)$")
      set(pc_libs "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(pc_flags "${pc_cflags} ${pc_libs}")
  message(STATUS "geblas.pc gives: ${pc_flags}")
endif()
if(NOT pc_version STREQUAL EXPECT_VERSION)
  message(FATAL_ERROR "geblas.pc says version '${pc_version}', expected ${EXPECT_VERSION}")
endif()
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
run_checked("build the pkg-config consumer"
  ${CXX_COMPILER} ${SOURCE_DIR}/main.cpp -DEXPECT_VERSION="${EXPECT_VERSION}" ${pc_flags} -o ${WORK_DIR}/pc_consumer)
run_checked("run the pkg-config consumer" ${WORK_DIR}/pc_consumer)
