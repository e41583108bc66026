# ruff: noqa
# attack: writing __name__ (only reading it is allowed)
# expect: policy_violation
# layer: ast_policy
__name__ = "x"
