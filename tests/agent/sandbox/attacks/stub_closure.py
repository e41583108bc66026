# ruff: noqa
# attack: reach the RPC channel through a stub's closure
# expect: policy_violation
# layer: ast_policy
print(ping.__closure__[0].cell_contents)
