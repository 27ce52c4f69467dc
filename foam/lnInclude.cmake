# SPDX-License-Identifier: GPL-3.0-or-later (see foam/README.md)
# cmake -DFOAM_SRC=... -DOUT=... -P lnInclude.cmake: what OpenFOAM's
# wmakeLnInclude makes, in the build tree: one folder of symbolic links to
# every .H and .C of the source folders OpenFOAM's headers include from.
# (Nothing is copied; the first of two equal names wins, as with wmake.)
set(dirs OpenFOAM OSspecific/POSIX)
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
foreach(d IN LISTS dirs)
  file(GLOB_RECURSE files LIST_DIRECTORIES false "${FOAM_SRC}/${d}/*.H"
       "${FOAM_SRC}/${d}/*.C")
  list(SORT files)
  foreach(f IN LISTS files)
    get_filename_component(name "${f}" NAME)
    if(NOT EXISTS "${OUT}/${name}" AND NOT IS_SYMLINK "${OUT}/${name}")
      file(CREATE_LINK "${f}" "${OUT}/${name}" SYMBOLIC)
    endif()
  endforeach()
endforeach()
file(TOUCH "${OUT}/.stamp")
