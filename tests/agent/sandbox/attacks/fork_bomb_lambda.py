# ruff: noqa
# attack: fork bomb spelled without imports
# expect: policy_violation
# layer: ast_policy
__import__("os").fork()
