# ruff: noqa
# attack: with statement over a file
# expect: policy_violation
with open("{{MARKER}}", "w") as f:
    f.write("ESCAPED")
