# ruff: noqa
# attack: raw escape: open an AF_UNIX socket to reach a host daemon
# expect: policy_violation
# layer: ast_policy
# evidence: stdout
# os_layer: seccomp
imp = (x for x in [1]).gi_frame.f_builtins["__import__"]
socket = imp("socket")
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("/run/docker.sock")
    print("ESCAPED unix socket")
except OSError as exc:
    print("denied", exc)
