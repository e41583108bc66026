# ruff: noqa
# attack: getattr with a dunder string
# expect: policy_violation
# layer: ast_policy
k = getattr(1, "__cl" + "ass__")
