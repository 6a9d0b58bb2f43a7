# af_add_test(NAME name LABELS l1 [l2] SOURCES s1 ... LIBS lib1 ... [PCH h1 ...])
# One Boost.Test executable per suite, registered with CTest and labelled.
# Test code asserts results, it is not timed: it builds at -O1 (a third
# faster to compile than -O3; the kernels it calls keep -O3), and with a
# precompiled header of Boost.Test plus the suite's common headers (PCH).
function(af_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "LABELS;SOURCES;LIBS;PCH" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_compile_options(${T_NAME} PRIVATE "$<$<NOT:$<CONFIG:Debug>>:-O1>")
  if(AF_PCH)
    target_precompile_headers(${T_NAME} PRIVATE <boost/test/unit_test.hpp> ${T_PCH})
    # With a precompiled header g++ 12 inlines std::string differently and
    # reports false -Warray-bounds/-Wstringop-overflow in char_traits.h (the
    # same files compile clean without one, at -O1, -O2 and -O3). Test code
    # only; the libraries keep both warnings.
    target_compile_options(${T_NAME} PRIVATE -Wno-array-bounds -Wno-stringop-overflow)
    # main.cc defines BOOST_TEST_MODULE before it includes Boost.Test, which
    # is what makes Boost generate main(): it must not see the header early.
    foreach(src ${T_SOURCES})
      get_filename_component(src_name "${src}" NAME)
      if(src_name STREQUAL "main.cc")
        set_source_files_properties("${src}" PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
      endif()
    endforeach()
  endif()
  target_compile_definitions(${T_NAME} PRIVATE BOOST_TEST_DYN_LINK
    AF_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} Boost::unit_test_framework)
  add_test(NAME ${T_NAME} COMMAND ${T_NAME} --report_level=short)
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  # Sanitizer builds run 2-4x slower (test_tools took 276 s under ASan).
  if(AF_SANITIZE)
    math(EXPR T_TIMEOUT "${T_TIMEOUT} * 4")
  endif()
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT})
endfunction()

# Libraries whose objects register ops or kernels from static initializers
# must be linked whole, or the linker drops the registrations.
function(af_link_whole target visibility)
  foreach(lib ${ARGN})
    target_link_libraries(${target} ${visibility} "$<LINK_LIBRARY:WHOLE_ARCHIVE,${lib}>")
  endforeach()
endfunction()
