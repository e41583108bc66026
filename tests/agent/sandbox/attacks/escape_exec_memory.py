# ruff: noqa
# attack: raw escape: map executable memory for shellcode
# expect: policy_violation
# layer: ast_policy
# evidence: stdout
# os_layer: seccomp
imp = (x for x in [1]).gi_frame.f_builtins["__import__"]
mmap = imp("mmap")
try:
    m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    print("ESCAPED exec memory")
except OSError as exc:
    print("denied", exc)
