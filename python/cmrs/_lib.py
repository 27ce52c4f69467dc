"""Finding libcmrs.so and declaring the C functions of include/cmrs.h.

The library is loaded on first use (not at import), from the first of:
  1. the environment variable CMRS_LIBRARY (a full path; nothing else is
     tried when it is set, so a wrong path is reported, not papered over);
  2. libcmrs.so next to this file, which `pip install` builds and bundles
     (BUNDLED; absent in the source tree);
  3. ctypes.util.find_library("cmrs"), then "libcmrs.so" on the loader's
     path (LD_LIBRARY_PATH, the ldconfig cache).
location() tells which one was loaded.
"""
import ctypes
import ctypes.util
import os

c_int, c_int64, c_double = ctypes.c_int, ctypes.c_int64, ctypes.c_double
c_char_p, c_void_p, POINTER = ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER

DEVICE_CPU = -1
DEVICE_AUTO = -2
INDEX_INT32, INDEX_INT64 = 0, 1
VALUE_FLOAT64, VALUE_FLOAT32 = 0, 1
MEMORY_HOST = 0
MEMORY_DEVICE = 1


class LibraryNotFoundError(ImportError):
    """libcmrs.so could not be loaded; the message lists every place tried."""


class SolveInfo(ctypes.Structure):
    """struct cmrs_solve_info, field for field (enums are C ints)."""

    _fields_ = [
        ("reason", c_int),
        ("converged", c_int),
        ("iterations", c_int64),
        ("residual", c_double),
        ("relative_residual", c_double),
        ("true_residual", c_double),
        ("true_relative_residual", c_double),
        ("t_setup", c_double),
        ("t_update", c_double),
        ("t_solve", c_double),
        ("method", ctypes.c_char * 16),
        ("precond", ctypes.c_char * 16),
        ("engine", ctypes.c_char * 16),
        ("format", ctypes.c_char * 32),
        ("height", c_int),
        ("precision", ctypes.c_char * 8),
        ("device", ctypes.c_char * 128),
    ]


# name: (return type, argument types); None returns void.
_PROTOTYPES = {
    "cmrs_version": (c_char_p, []),
    "cmrs_status_name": (c_char_p, [c_int]),
    "cmrs_reason_name": (c_char_p, [c_int]),
    "cmrs_last_error": (c_char_p, [c_void_p]),
    "cmrs_context_create": (c_int, [c_int, POINTER(c_void_p)]),
    "cmrs_context_destroy": (None, [c_void_p]),
    "cmrs_context_device": (c_int, [c_void_p]),
    "cmrs_context_device_name": (c_char_p, [c_void_p]),
    "cmrs_matrix_create_csr": (c_int, [c_void_p, c_int64, c_int64, c_int64,
                                       c_void_p, c_void_p, c_int, c_void_p,
                                       c_int, POINTER(c_void_p)]),
    "cmrs_matrix_create_csr_rows": (c_int, [c_void_p, c_int64, c_int64,
                                            c_int64, c_int64, c_void_p,
                                            c_void_p, c_int, c_void_p,
                                            c_int, POINTER(c_void_p)]),
    "cmrs_matrix_destroy": (None, [c_void_p]),
    "cmrs_solver_create": (c_int, [c_void_p, POINTER(c_void_p)]),
    "cmrs_solver_set_option": (c_int, [c_void_p, c_char_p, c_char_p]),
    "cmrs_solver_set_mpi_comm": (c_int, [c_void_p, c_int64]),
    "cmrs_solver_setup": (c_int, [c_void_p, c_void_p]),
    "cmrs_solver_update_values": (c_int, [c_void_p, c_void_p, c_int, c_int]),
    "cmrs_solver_solve_ex": (c_int, [c_void_p, c_void_p, c_void_p, c_int,
                                     c_int]),
    "cmrs_solver_apply_precond": (c_int, [c_void_p, c_void_p, c_void_p,
                                          c_int, c_int]),
    "cmrs_solver_get_info": (c_int, [c_void_p, POINTER(SolveInfo)]),
    "cmrs_solver_history": (c_int, [c_void_p, POINTER(c_double), c_int64,
                                    POINTER(c_int64)]),
    "cmrs_solver_destroy": (None, [c_void_p]),
}

# The header these declarations mirror: a library of another MAJOR.MINOR
# may lay out cmrs_solve_info differently, which ctypes cannot see.
HEADER_VERSION = (0, 2)

# The library `pip install` puts in the package (pyproject.toml).
BUNDLED = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "libcmrs.so")

_loaded = None
_loaded_from = None


def _candidates():
    """(where the name came from, the name to dlopen), in lookup order."""
    env = os.environ.get("CMRS_LIBRARY")
    if env:
        return [("CMRS_LIBRARY", env)]
    found = [("bundled with the package", BUNDLED)]
    name = ctypes.util.find_library("cmrs")
    if name:
        found.append(("ctypes.util.find_library('cmrs')", name))
    found.append(("the loader's path", "libcmrs.so"))
    return found


def _declare(dll):
    for name, (restype, argtypes) in _PROTOTYPES.items():
        fn = getattr(dll, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return dll


def check_version(dll, origin):
    """Refuses a library whose MAJOR.MINOR is not the header's."""
    found = text(dll.cmrs_version())
    if tuple(int(v) for v in found.split(".")[:2]) != HEADER_VERSION:
        want = ".".join(map(str, HEADER_VERSION))
        raise LibraryNotFoundError(
            f"cmrs: {origin} is libcmrs {found}; this package needs {want}.x")
    return dll


def lib():
    """The loaded library with its prototypes declared (loaded once)."""
    global _loaded, _loaded_from
    if _loaded is None:
        tried = []
        for origin, name in _candidates():
            if os.sep in name and not os.path.exists(name):
                tried.append(f"  {origin}: {name}: no such file")
                continue
            try:
                dll = _declare(ctypes.CDLL(name))
                break
            except (OSError, AttributeError) as e:
                tried.append(f"  {origin}: {name}: {e}")
        else:
            raise LibraryNotFoundError(
                "cmrs: cannot load libcmrs.so; tried:\n" + "\n".join(tried) +
                "\nInstall the package with `pip install ./python` (it builds "
                "and bundles the library), or build it (cmake --build build) "
                "and set CMRS_LIBRARY=/path/to/libcmrs.so.")
        _loaded = check_version(dll, f"{origin} ({name})")
        _loaded_from = (origin, name)
    return _loaded


def location():
    """(where it came from, the path or name dlopen was given) of the
    library in use; loads it first."""
    lib()
    return _loaded_from


def text(raw):
    """A C string from the library as str ("" for NULL)."""
    return raw.decode("utf-8", "replace") if raw else ""
