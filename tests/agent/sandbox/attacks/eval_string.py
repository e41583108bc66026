# ruff: noqa
# attack: eval of a string
# expect: policy_violation
# layer: ast_policy
eval("1 + 1")
