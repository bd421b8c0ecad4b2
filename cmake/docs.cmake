# `cmake --build build --target docs`: the API reference from the public headers with
# Doxygen (Debian: doxygen), into build/docs/html/index.html. The headers document
# themselves with plain `//` comments above each declaration (the house style), so an
# input filter turns a comment line into a `///` doc line for Doxygen alone; the
# headers stay as they are. geblas::detail and the detail/ folder are left out.
find_package(Doxygen QUIET)
if(DOXYGEN_FOUND)
  set(DOXYGEN_PROJECT_NAME geblas)
  set(DOXYGEN_PROJECT_NUMBER ${PROJECT_VERSION})
  set(DOXYGEN_PROJECT_BRIEF "GraphBLAS-style semiring sparse linear algebra, CPU and CUDA")
  set(DOXYGEN_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/docs)
  set(DOXYGEN_GENERATE_LATEX NO)
  set(DOXYGEN_EXTRACT_ALL YES)
  set(DOXYGEN_JAVADOC_AUTOBRIEF YES)
  set(DOXYGEN_QUIET YES)
  # Angle brackets of templates in comments read as HTML tags: noise, kept out of the build log.
  set(DOXYGEN_WARN_LOGFILE ${PROJECT_BINARY_DIR}/docs/warnings.log)
  set(DOXYGEN_WARN_IF_UNDOCUMENTED NO)
  set(DOXYGEN_FULL_PATH_NAMES YES)
  set(DOXYGEN_STRIP_FROM_PATH ${PROJECT_SOURCE_DIR}/include ${GEBLAS_GENERATED_INCLUDE_DIR})
  set(DOXYGEN_EXCLUDE_PATTERNS */detail/* */cuda.cuh)
  set(DOXYGEN_EXCLUDE_SYMBOLS detail "geblas::detail" "geblas::*::detail")
  set(DOXYGEN_ENABLE_PREPROCESSING YES)
  set(DOXYGEN_PREDEFINED "GEBLAS_API=" "GEBLAS_HD=inline")
  set(DOXYGEN_USE_MDFILE_AS_MAINPAGE ${PROJECT_SOURCE_DIR}/README.md)
  set(DOXYGEN_INPUT_FILTER "sed -e 's|^\\([[:space:]]*\\)//\\([^/]\\)|\\1///\\2|'")
  set(DOXYGEN_FILTER_SOURCE_FILES NO)
  set(DOXYGEN_FILE_PATTERNS *.hpp *.md)
  doxygen_add_docs(docs
    ${PROJECT_SOURCE_DIR}/include/geblas ${GEBLAS_GENERATED_INCLUDE_DIR}/geblas/version.hpp
    ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/CLI.md ${PROJECT_SOURCE_DIR}/docs/FORMATS.md
    ${PROJECT_SOURCE_DIR}/docs/TYPES.md ${PROJECT_SOURCE_DIR}/docs/RELIABILITY.md
    COMMENT "geblas API reference (Doxygen) -> ${PROJECT_BINARY_DIR}/docs/html/index.html")
  # Installed with the user documentation when it was built (`--target docs` first).
  install(DIRECTORY ${PROJECT_BINARY_DIR}/docs/html/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/api OPTIONAL)
else()
  add_custom_target(docs
    COMMAND ${CMAKE_COMMAND} -E echo "geblas docs: skipped: Doxygen was not found (Debian: apt-get install doxygen), reconfigure after installing it"
    VERBATIM)
endif()
