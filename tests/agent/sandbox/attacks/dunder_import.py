# ruff: noqa
# attack: __import__ builtin
# expect: policy_violation
# layer: ast_policy
__import__("os").system("echo ESCAPED > {{MARKER}}")
