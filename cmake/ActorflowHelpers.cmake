# af_add_test(NAME name LABELS l1 [l2] SOURCES s1 ... LIBS lib1 ...)
# One Boost.Test executable per suite, registered with CTest and labelled.
function(af_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "LABELS;SOURCES;LIBS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_compile_definitions(${T_NAME} PRIVATE BOOST_TEST_DYN_LINK
    AF_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data")
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} Boost::unit_test_framework)
  add_test(NAME ${T_NAME} COMMAND ${T_NAME} --report_level=short)
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
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
