# ruff: noqa
# attack: raw escape: connect to a server on the host's 127.0.0.1
# expect: policy_violation
# evidence: socket
# layer: ast_policy
# os_layer: seccomp
b = (x for x in [1]).gi_frame.f_builtins
s = b["__import__"]("socket").create_connection(("127.0.0.1", {{PORT}}), timeout=1)
s.sendall(b"ESCAPED")
