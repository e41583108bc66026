# ruff: noqa
# attack: str.format bound method taken as a value
# expect: policy_violation
# layer: ast_policy
f = "{0.__class__}".format
print(f(1))
