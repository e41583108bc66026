# ruff: noqa
# attack: ctypes to call libc
# expect: policy_violation
# layer: ast_policy
import ctypes
ctypes.CDLL(None).system(b"echo ESCAPED > {{MARKER}}")
