# ruff: noqa
# attack: with statement over a file
# expect: policy_violation
# layer: ast_policy
with open("{{MARKER}}", "w") as f:
    f.write("ESCAPED")
