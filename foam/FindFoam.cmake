# SPDX-License-Identifier: BSD-3-Clause (see LICENSE)
# Where OpenFOAM is, for the optional plugin in foam/ (built only when both
# are found; it is the only part of cmrs that links GPL code):
#   CMRS_FOAM            AUTO (default) | ON (fail when not found) | OFF
#   CMRS_FOAM_SRC        OpenFOAM's source tree, src/ (its headers): else
#                        $FOAM_SRC, else ../shared/third_party/openfoam-v1912/src
#                        beside the checkout, else /work/shared/... (CI)
#   CMRS_FOAM_LIBDIR     where libOpenFOAM.so is: else $FOAM_LIBBIN, /usr/lib
#   CMRS_FOAM_API        the release's number, OPENFOAM=... (1912)
#   CMRS_FOAM_LABEL_SIZE 32 or 64, as OpenFOAM was built (32)
# Sets CMRS_FOAM_FOUND.
set(CMRS_FOAM AUTO CACHE STRING "Build the OpenFOAM plugin: AUTO, ON or OFF")
set(CMRS_FOAM_API 1912 CACHE STRING "OpenFOAM release (OPENFOAM=...)")
set(CMRS_FOAM_LABEL_SIZE 32 CACHE STRING "OpenFOAM label size (32 or 64)")
set(CMRS_FOAM_FOUND OFF)
if(NOT CMRS_FOAM STREQUAL "OFF")
  if(NOT CMRS_FOAM_SRC)
    foreach(d "$ENV{FOAM_SRC}"
              "${CMAKE_SOURCE_DIR}/../shared/third_party/openfoam-v1912/src"
              "/work/shared/third_party/openfoam-v1912/src")
      if(d AND EXISTS "${d}/OpenFOAM/matrices/lduMatrix/lduMatrix/lduMatrix.H")
        get_filename_component(d "${d}" ABSOLUTE)
        set(CMRS_FOAM_SRC "${d}" CACHE PATH "OpenFOAM source tree (src/)")
        break()
      endif()
    endforeach()
  endif()
  find_library(CMRS_FOAM_LIBRARY OpenFOAM
    HINTS ${CMRS_FOAM_LIBDIR} $ENV{FOAM_LIBBIN} /usr/lib
    /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE})
  if(CMRS_FOAM_SRC AND CMRS_FOAM_LIBRARY)
    set(CMRS_FOAM_FOUND ON)
    message(STATUS "cmrs: OpenFOAM plugin: headers ${CMRS_FOAM_SRC}, "
                   "library ${CMRS_FOAM_LIBRARY}")
  elseif(CMRS_FOAM STREQUAL "ON")
    message(FATAL_ERROR "CMRS_FOAM=ON but OpenFOAM was not found: source "
      "tree '${CMRS_FOAM_SRC}', libOpenFOAM '${CMRS_FOAM_LIBRARY}' "
      "(set CMRS_FOAM_SRC and CMRS_FOAM_LIBDIR)")
  else()
    message(STATUS "cmrs: OpenFOAM not found (source tree "
      "'${CMRS_FOAM_SRC}', libOpenFOAM '${CMRS_FOAM_LIBRARY}'): the plugin "
      "is not built and its tests report skipped")
  endif()
endif()
