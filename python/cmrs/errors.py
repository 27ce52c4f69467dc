"""Exceptions: one class per cmrs_status, all subclasses of CmrsError.

A solve that does not converge is not an error (info.converged is False).
"""
from . import _lib


class CmrsError(Exception):
    """A failed libcmrs call, or input refused before reaching it.

    status:      the cmrs_status code (1 = ERROR_USAGE, 2 = ERROR_INPUT, ...)
    status_name: "ERROR_USAGE", ...
    message:     the library's message (cmrs_last_error), or ours for checks
                 the library cannot make (array lengths, dtypes)
    call:        the C function that failed, None for a check made here
    """

    status = None
    status_name = "ERROR"

    def __init__(self, message, call=None):
        self.message = message
        self.call = call
        # the call's name once, whether or not the library's text has it
        named = not call or message.startswith(call)
        super().__init__(message if named else f"{call}: {message}")


class UsageError(CmrsError, ValueError):
    status, status_name = 1, "ERROR_USAGE"


class InputError(CmrsError, ValueError):
    status, status_name = 2, "ERROR_INPUT"


class LimitError(CmrsError):
    status, status_name = 3, "ERROR_LIMIT"


class NoMemoryError(CmrsError, MemoryError):
    status, status_name = 4, "ERROR_NOMEM"


class FileError(CmrsError):
    status, status_name = 5, "ERROR_IO"


class GPUError(CmrsError):
    status, status_name = 6, "ERROR_GPU"


class NoDeviceError(CmrsError):
    status, status_name = 7, "ERROR_NODEVICE"


class InternalError(CmrsError):
    status, status_name = 8, "ERROR_INTERNAL"


_BY_STATUS = {cls.status: cls for cls in (
    UsageError, InputError, LimitError, NoMemoryError, FileError, GPUError,
    NoDeviceError, InternalError)}


def check(status, ctx_handle, call):
    """Raises the exception of a nonzero status with cmrs_last_error's text
    (ctx_handle None: the calling thread's last failure)."""
    if status == 0:
        return
    message = _lib.text(_lib.lib().cmrs_last_error(ctx_handle))
    cls = _BY_STATUS.get(status)
    if cls is None:  # a status newer than this module: keep its number
        err = CmrsError(message or f"status {status}", call)
        err.status = status
        raise err
    raise cls(message or cls.status_name, call)
