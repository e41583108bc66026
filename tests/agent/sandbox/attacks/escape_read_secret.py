# ruff: noqa
# attack: raw escape: read a root-only host file and print it
# expect: policy_violation
# evidence: secret
# layer: ast_policy
# os_layer: seccomp
b = (x for x in [1]).gi_frame.f_builtins
print(b["open"]("{{SECRET}}").read())
