# The docs' snippets (included by tests/docs/CMakeLists.txt): every fenced block of
# README.md and docs/*.md (not docs/notes) run as printed against a scratch install of
# this build (run_snippets.py; the convention is docs/CONTRIBUTING.md, "Snippets in the
# docs"). One test per document, label cpu; a
# document with blocks marked gpu also gets NAME_gpu (label gpu, exit 77 without a device).
# Not in a sanitizer build: a snippet is a reader's program, built without the sanitizer
# runtime against the installed library, which an instrumented library refuses (the
# reason CI leaves install_consumer out of that stage too).
if(GEBLAS_SANITIZE OR GEBLAS_FUZZ)
  message(STATUS "geblas: an instrumented build: the docs' snippet tests are not registered")
  return()
endif()
find_package(Python3 REQUIRED COMPONENTS Interpreter)
file(GLOB geblas_user_docs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
set(geblas_snippet_runner ${CMAKE_CURRENT_SOURCE_DIR}/run_snippets.py)
set(geblas_snippet_args --source-dir ${PROJECT_SOURCE_DIR} --build-dir ${PROJECT_BINARY_DIR}
    --python ${Python3_EXECUTABLE} --cxx ${CMAKE_CXX_COMPILER})
if(NOT GEBLAS_PYTHON)
  list(APPEND geblas_snippet_args --no-python-package)
endif()
foreach(doc ${PROJECT_SOURCE_DIR}/README.md ${geblas_user_docs})
  get_filename_component(name ${doc} NAME_WE)
  add_test(NAME docs_snippets_${name}
           COMMAND ${Python3_EXECUTABLE} ${geblas_snippet_runner} ${doc} ${geblas_snippet_args}
                   --work-dir ${CMAKE_CURRENT_BINARY_DIR}/${name})
  set_tests_properties(docs_snippets_${name} PROPERTIES LABELS cpu SKIP_RETURN_CODE 77 TIMEOUT 900)
  # Whether the document has gpu blocks is read here, so an edit to it re-runs CMake.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${doc})
  file(STRINGS ${doc} gpu_markers REGEX "^[ \t]*<!--[ \t]*snippet:[ \t]*gpu[ \t]*-->[ \t]*$")
  if(gpu_markers)
    add_test(NAME docs_snippets_${name}_gpu
             COMMAND ${Python3_EXECUTABLE} ${geblas_snippet_runner} ${doc} ${geblas_snippet_args} --gpu
                     --work-dir ${CMAKE_CURRENT_BINARY_DIR}/${name}_gpu)
    set_tests_properties(docs_snippets_${name}_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 900)
  endif()
endforeach()

# The runner itself, on documents made to pass and to fail in each way it must catch.
add_test(NAME docs_snippets_selftest
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/test_run_snippets.py
                 ${geblas_snippet_args} --work-dir ${CMAKE_CURRENT_BINARY_DIR}/selftest)
set_tests_properties(docs_snippets_selftest PROPERTIES LABELS cpu TIMEOUT 900)
