# ruff: noqa
# attack: raw escape: signal a host process owned by root
# expect: policy_violation
# evidence: victim
# layer: ast_policy
# os_layer: bubblewrap
os = (x for x in [1]).gi_frame.f_builtins["__import__"]("os")
os.kill({{VICTIM}}, 9)
