# ruff: noqa
# attack: __import__ builtin
# expect: policy_violation
__import__("os").system("echo ESCAPED > {{MARKER}}")
