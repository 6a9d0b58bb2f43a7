# Debian's libcaf-dev (0.17.6) ships neither a CMake package config nor a
# pkg-config file, so locate headers and libraries by hand.
find_package(Threads REQUIRED)
find_path(CAF_INCLUDE_DIR caf/all.hpp)
find_library(CAF_CORE_LIBRARY caf_core)
find_library(CAF_IO_LIBRARY caf_io)
# libcaf_openssl: mutual TLS for clusters with a secret (actors/transport/cluster_tls.h).
find_library(CAF_OPENSSL_LIBRARY caf_openssl)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CAF REQUIRED_VARS CAF_INCLUDE_DIR CAF_CORE_LIBRARY CAF_IO_LIBRARY
  CAF_OPENSSL_LIBRARY)

if(CAF_FOUND AND NOT TARGET caf::core)
  add_library(caf::core UNKNOWN IMPORTED)
  set_target_properties(caf::core PROPERTIES
    IMPORTED_LOCATION "${CAF_CORE_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
  add_library(caf::io UNKNOWN IMPORTED)
  set_target_properties(caf::io PROPERTIES
    IMPORTED_LOCATION "${CAF_IO_LIBRARY}"
    INTERFACE_LINK_LIBRARIES caf::core)
  add_library(caf::openssl UNKNOWN IMPORTED)
  set_target_properties(caf::openssl PROPERTIES
    IMPORTED_LOCATION "${CAF_OPENSSL_LIBRARY}"
    INTERFACE_LINK_LIBRARIES caf::io)
endif()
