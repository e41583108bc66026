# ruff: noqa
# attack: ctypes to call libc
# expect: policy_violation
import ctypes
ctypes.CDLL(None).system(b"echo ESCAPED > {{MARKER}}")
