# ruff: noqa
# attack: function globals through a lambda
# expect: policy_violation
# layer: ast_policy
print((lambda: 0).__globals__)
