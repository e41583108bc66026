# ruff: noqa
# attack: raw escape: ctypes libc system() writing a host file
# expect: policy_violation
# evidence: marker
# layer: ast_policy
# os_layer: seccomp
ctypes = (x for x in [1]).gi_frame.f_builtins["__import__"]("ctypes")
ctypes.CDLL(None).system(b"echo ESCAPED > {{MARKER}}")
