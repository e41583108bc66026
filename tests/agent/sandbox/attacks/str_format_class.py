# ruff: noqa
# attack: str.format field reaching __class__
# expect: policy_violation
# layer: format_checker
print("{0.__class__.__mro__}".format(1))
