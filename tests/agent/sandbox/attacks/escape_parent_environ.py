# ruff: noqa
# attack: raw escape: read the parent's environment (API keys) through /proc
# expect: policy_violation
# evidence: canary
# layer: ast_policy
# os_layer: bubblewrap
b = (x for x in [1]).gi_frame.f_builtins
print(b["open"]("/proc/{{PARENT}}/environ").read())
