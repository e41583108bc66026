# ruff: noqa
# attack: a forbidden field hidden in a nested format spec
# expect: policy_violation
# layer: format_checker
print("{0:{1.__class__}}".format(1, 2))
