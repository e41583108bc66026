# ruff: noqa
# attack: raw escape: ptrace-attach to the parent through ctypes
# expect: policy_violation
# layer: ast_policy
# evidence: stdout
# os_layer: seccomp
imp = (x for x in [1]).gi_frame.f_builtins["__import__"]
ctypes = imp("ctypes")
libc = ctypes.CDLL(None)
if libc.ptrace(16, {{PARENT}}, 0, 0) == 0:
    print("ESCAPED ptrace")
