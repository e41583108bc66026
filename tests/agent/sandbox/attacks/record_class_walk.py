# ruff: noqa
# attack: a skill result record's class to its methods' globals
# expect: policy_violation
# layer: ast_policy
r = ping("x")
print(r.__class__.__getattr__.__globals__)
