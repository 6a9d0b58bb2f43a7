# oneDNN located by hand instead of through Debian's dnnl-config.cmake: that
# config file also looks for OpenCL (libdnnl-dev only Recommends OpenCL's
# development files), and we use oneDNN's CPU engine alone. See
# docs/decisions.md, "Build".
find_path(DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp)
find_library(DNNL_LIBRARY dnnl)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(DNNL REQUIRED_VARS DNNL_INCLUDE_DIR DNNL_LIBRARY)

if(DNNL_FOUND AND NOT TARGET DNNL::dnnl)
  add_library(DNNL::dnnl UNKNOWN IMPORTED)
  set_target_properties(DNNL::dnnl PROPERTIES
    IMPORTED_LOCATION "${DNNL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${DNNL_INCLUDE_DIR}")
endif()
