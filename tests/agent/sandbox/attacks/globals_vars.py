# ruff: noqa
# attack: globals() to reach module state
# expect: policy_violation
# layer: ast_policy
g = globals()
print(g)
