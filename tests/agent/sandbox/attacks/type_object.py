# ruff: noqa
# attack: type() to reach object
# expect: policy_violation
# layer: ast_policy
print(type(1).mro())
