# ruff: noqa
# attack: raw escape: write a file into the host's /tmp with the real open()
# expect: policy_violation
# evidence: marker
# layer: ast_policy
# os_layer: seccomp
g = (x for x in [1])
b = g.gi_frame.f_builtins
b["open"]("{{MARKER}}", "w").write("ESCAPED")
