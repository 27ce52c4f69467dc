# cmake --install: the header, libcmrs.so (SONAME libcmrs.so.MAJOR) and
# libcmrs.a, a CMake package (find_package(cmrs) -> cmrs::cmrs, the shared
# library, and cmrs::cmrs_static), the cmrs command, and a pkg-config file (cmrs.pc; static
# linking: pkg-config --static).
include(CMakePackageConfigHelpers)
set(cmrs_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/cmrs)

install(FILES ${CMAKE_SOURCE_DIR}/include/cmrs.h
              ${CMAKE_SOURCE_DIR}/include/cmrs_mpi.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The license (BSD-3-Clause) goes with every install, where Debian's
# packages keep theirs.
install(FILES ${CMAKE_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/cmrs)
install(TARGETS cmrs_shared cmrs_static EXPORT cmrsTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The command itself, where it is built, so that README's `cmrs ...` lines
# work from PATH after an install.
if(TARGET cmrs)
  install(TARGETS cmrs RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(EXPORT cmrsTargets NAMESPACE cmrs:: DESTINATION ${cmrs_cmake_dir})

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/cmrsConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmrsConfig.cmake INSTALL_DESTINATION ${cmrs_cmake_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmrsConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmrsConfig.cmake
        ${CMAKE_BINARY_DIR}/cmrsConfigVersion.cmake
        DESTINATION ${cmrs_cmake_dir})

# pkg-config: the static dependencies as the linker wants them. cuBLAS and
# cuSPARSE are loaded at run time (base/gpu/cuda_dl.c): -ldl
# instead (an empty stub on glibc >= 2.34, needed before). A build without
# CUDA needs neither the runtime nor the C++ library.
set(cmrs_pc_static "")
if(CMRS_CUDA)
  get_filename_component(cmrs_cuda_libdir "${CUDA_cudart_LIBRARY}" DIRECTORY)
  set(cmrs_pc_static "-L${cmrs_cuda_libdir} -lcudart")
endif()
foreach(lib IN LISTS HDF5_C_LIBRARIES)
  string(APPEND cmrs_pc_static " ${lib}")
endforeach()
if(ZLIB_FOUND)
  string(APPEND cmrs_pc_static " -lz")
endif()
if(CMRS_METIS_LIBRARY)
  string(APPEND cmrs_pc_static " -lmetis")
endif()
foreach(lib IN LISTS CMRS_MPI_LIBRARY)
  string(APPEND cmrs_pc_static " ${lib}")
endforeach()
string(APPEND cmrs_pc_static " -lm")
if(CMRS_CUDA)
  string(APPEND cmrs_pc_static " -lstdc++")
endif()
string(APPEND cmrs_pc_static " -lpthread")
foreach(lib IN LISTS CMAKE_DL_LIBS)
  string(APPEND cmrs_pc_static " -l${lib}")
endforeach()
string(STRIP "${cmrs_pc_static}" cmrs_pc_static)
configure_file(${CMAKE_SOURCE_DIR}/cmake/cmrs.pc.in
               ${CMAKE_BINARY_DIR}/cmrs.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/cmrs.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
