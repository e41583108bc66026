# ruff: noqa
# attack: reach the real builtins through __builtins__
# expect: policy_violation
b = __builtins__
b["open"]("{{MARKER}}", "w").write("ESCAPED")
