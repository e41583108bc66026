# ruff: noqa
# attack: eval of a string
# expect: policy_violation
eval("1 + 1")
