# `make package`: a Debian package of what cmake/ActorflowInstall.cmake
# installs, under /usr. It is a development package (static libraries and
# headers), so it depends on the -dev packages of what the archives link and
# what find_package(Actorflow) looks for; those pull in the shared libraries
# the `actorflow` tool needs at run time.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME actorflow)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "Actorflow")
set(CPACK_PACKAGE_CONTACT "Actorflow maintainers <actorflow@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "TensorFlow-1 style dataflow runtime on the C++ Actor Framework (development files)")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Static libraries, headers, CMake package and pkg-config file of Actorflow's C++ API\n\
(graphs, sessions, op wrappers, gradients, optimizers, CPU kernels) and the\n\
`actorflow` command line (run, inspect, server, cluster). Built for\n\
-march=${AF_MARCH}.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # actorflow_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
# Upper bounds where the archives hold code compiled against a library's
# headers: CAF 0.17.6's and protobuf 3.21's ABIs (generated .pb.h files
# also refuse other protobuf versions), oneDNN 2.x's.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libcaf-dev (>= 0.17.6), libcaf-dev (<< 0.17.7), libprotobuf-dev (>= 3.21), libprotobuf-dev (<< 3.22), libdnnl-dev (>= 2.6), libdnnl-dev (<< 3), libeigen3-dev (>= 3.4), zlib1g-dev, libssl-dev (>= 3)")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake (>= 3.24), pkg-config, g++ (>= 4:12)")
# The -dev packages above bring the runtime libraries; dpkg-shlibdeps would
# only repeat them.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/package")
include(CPack)
