# ruff: noqa
# attack: compile to a code object
# expect: policy_violation
# layer: ast_policy
c = compile("1", "x", "eval")
