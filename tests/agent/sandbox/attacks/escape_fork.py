# ruff: noqa
# attack: raw escape: fork a process (fork bomb seed)
# expect: policy_violation
# evidence: stdout
# layer: ast_policy
# os_layer: seccomp
os = (x for x in [1]).gi_frame.f_builtins["__import__"]("os")
pid = os.fork()
if pid == 0:
    os._exit(0)
print("ESCAPED fork", pid)
