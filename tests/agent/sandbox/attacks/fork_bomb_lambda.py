# ruff: noqa
# attack: fork bomb spelled without imports
# expect: policy_violation
__import__("os").fork()
