# `cmake --install build --prefix P`: the static libraries, the `actorflow`
# tool, the public headers under P/include/actorflow (in-tree paths kept, so
# applications include "client/client_session.h" as the examples do), a CMake
# package (find_package(Actorflow CONFIG)) and a pkg-config file. Included
# from the top-level CMakeLists.txt once every target exists.
include(CMakePackageConfigHelpers)

# Fixed paths rather than GNUInstallDirs' (a multiarch libdir under /usr
# only): the same layout in every prefix, the Debian package's included,
# which the pkg-config file and the docs name.
set(AF_INSTALL_LIBDIR lib)
set(AF_INSTALL_INCLUDEDIR include/actorflow)
set(AF_INSTALL_CMAKEDIR ${AF_INSTALL_LIBDIR}/cmake/Actorflow)

# Actorflow::actorflow: the whole C++ API with every op and kernel
# registered. Those register from static initializers, so the archives that
# hold them are linked whole, as the in-tree programs link them.
add_library(af_all INTERFACE)
set_target_properties(af_all PROPERTIES EXPORT_NAME actorflow)
target_link_libraries(af_all INTERFACE af_client
  "$<LINK_LIBRARY:WHOLE_ARCHIVE,af_kernels>" "$<LINK_LIBRARY:WHOLE_ARCHIVE,af_core_ops>")
# The public headers need C++20 (<concepts>, among others).
target_compile_features(af_all INTERFACE cxx_std_20)
add_library(Actorflow::actorflow ALIAS af_all)

set(AF_EXPORTED_LIBS af_proto af_core af_core_ops af_graph af_control_flow af_runtime
    af_kernels af_actors af_client)
foreach(lib ${AF_EXPORTED_LIBS})
  # Actorflow::core, Actorflow::client, ...: the finer targets, for
  # programs that want less than everything (they link kernels and ops
  # whole themselves).
  string(REGEX REPLACE "^af_" "" export_name ${lib})
  set_target_properties(${lib} PROPERTIES EXPORT_NAME ${export_name})
endforeach()
# The command line, as Actorflow::cli, so a consumer's tests can start
# `actorflow server` from the same installation.
set_target_properties(actorflow PROPERTIES EXPORT_NAME cli)

install(TARGETS ${AF_EXPORTED_LIBS} af_all actorflow EXPORT ActorflowTargets
  ARCHIVE DESTINATION ${AF_INSTALL_LIBDIR}
  RUNTIME DESTINATION bin)

# Headers: every header of the layers the client API reaches (core types,
# graphs, control flow, the runtime's step plans, the client API itself);
# from actors/ the CAF-free WorkerServer, which hosts a worker inside an
# application, and the embedding API below. tests/install checks that every
# installed header's includes are installed too.
install(DIRECTORY core graph control-flow runtime client
  DESTINATION ${AF_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h"
  PATTERN "gen" EXCLUDE)
install(FILES actors/worker_server.h actors/runtime_handle.h
  DESTINATION ${AF_INSTALL_INCLUDEDIR}/actors)
# actors/embedding.h hosts Actorflow in an application's own CAF actor
# system (docs/embedding.md): it and the actors/ headers it includes, which
# name CAF types (an embedding application links caf::io itself; the
# package's config defines it).
if(EXISTS "${PROJECT_SOURCE_DIR}/actors/embedding.h")
  install(FILES actors/embedding.h actors/interfaces.h actors/client_calls.h actors/completion.h
    DESTINATION ${AF_INSTALL_INCLUDEDIR}/actors)
  install(FILES actors/health/health_events.h DESTINATION ${AF_INSTALL_INCLUDEDIR}/actors/health)
  install(FILES actors/transport/wire.h DESTINATION ${AF_INSTALL_INCLUDEDIR}/actors/transport)
endif()
# Generated in the build tree: protobuf classes, op wrappers, the version.
install(DIRECTORY "${PROJECT_BINARY_DIR}/proto/" DESTINATION ${AF_INSTALL_INCLUDEDIR}/proto
  FILES_MATCHING PATTERN "*.pb.h" PATTERN "CMakeFiles" EXCLUDE)
install(FILES "${PROJECT_BINARY_DIR}/client/ops/generated_ops.h"
  DESTINATION ${AF_INSTALL_INCLUDEDIR}/client/ops)
install(FILES "${PROJECT_BINARY_DIR}/core/version.h" DESTINATION ${AF_INSTALL_INCLUDEDIR}/core)

# The CMake package. Debian's CAF and oneDNN are found with this project's
# own Find modules (see them for why), shipped beside the config file.
install(EXPORT ActorflowTargets NAMESPACE Actorflow:: DESTINATION ${AF_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/ActorflowConfig.cmake.in
  "${PROJECT_BINARY_DIR}/install-config/ActorflowConfig.cmake"
  INSTALL_DESTINATION ${AF_INSTALL_CMAKEDIR})
# 0.x: minor versions may break the API.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/ActorflowConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/install-config/ActorflowConfig.cmake"
  "${PROJECT_BINARY_DIR}/ActorflowConfigVersion.cmake"
  DESTINATION ${AF_INSTALL_CMAKEDIR})
install(FILES cmake/FindCAF.cmake cmake/FindDNNL.cmake
  DESTINATION ${AF_INSTALL_CMAKEDIR}/find-modules)

# The same package straight from the build tree (-DCMAKE_PREFIX_PATH=build):
# headers from the source and build trees, libraries from build/lib.
export(EXPORT ActorflowTargets NAMESPACE Actorflow::
  FILE "${PROJECT_BINARY_DIR}/ActorflowTargets.cmake")
configure_package_config_file(cmake/ActorflowConfig.cmake.in
  "${PROJECT_BINARY_DIR}/ActorflowConfig.cmake"
  INSTALL_DESTINATION "${PROJECT_BINARY_DIR}" INSTALL_PREFIX "${PROJECT_BINARY_DIR}")
file(COPY cmake/FindCAF.cmake cmake/FindDNNL.cmake DESTINATION "${PROJECT_BINARY_DIR}/find-modules")

# pkg-config: static archives only, so everything goes in Libs and Requires
# (pkg-config --libs leaves the .private fields out without --static).
# Built with the CUDA toolkit: the kernels archive needs the CUDA runtime,
# cuBLAS and cuDNN from the same toolkit directory.
set(AF_PC_CUDA_LIBS "")
if(AF_HAVE_CUDA)
  get_filename_component(AF_CUDNN_DIR "${AF_CUDNN_LIBRARY}" DIRECTORY)
  set(AF_PC_CUDA_LIBS " -L${CUDAToolkit_LIBRARY_DIR} -L${AF_CUDNN_DIR} -Wl,-rpath,${CUDAToolkit_LIBRARY_DIR} -lcudart_static -lcublas -lcublasLt -lcudnn -ldl -lrt")
endif()
configure_file(cmake/actorflow.pc.in "${PROJECT_BINARY_DIR}/actorflow.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/actorflow.pc" DESTINATION ${AF_INSTALL_LIBDIR}/pkgconfig)

include(cmake/ActorflowPackage.cmake)
