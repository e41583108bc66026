# ruff: noqa
# attack: breakpoint() to get a debugger
# expect: policy_violation
# layer: ast_policy
breakpoint()
