# ruff: noqa
# attack: a generator hidden in a lambda
# expect: policy_violation
# layer: ast_policy
f = lambda: (yield)
print(f().gi_frame)
