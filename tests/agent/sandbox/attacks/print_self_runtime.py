# ruff: noqa
# attack: print's bound __self__ to the child runtime
# expect: policy_violation
# layer: ast_policy
print(print.__self__.channel)
