# ruff: noqa
# attack: compile to a code object
# expect: policy_violation
c = compile("1", "x", "eval")
