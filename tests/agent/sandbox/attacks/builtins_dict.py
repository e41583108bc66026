# ruff: noqa
# attack: reach the real builtins through __builtins__
# expect: policy_violation
# layer: ast_policy
b = __builtins__
b["open"]("{{MARKER}}", "w").write("ESCAPED")
