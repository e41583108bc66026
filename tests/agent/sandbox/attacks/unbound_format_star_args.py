# ruff: noqa
# attack: str.format(*args): the template arrives through a starred argument
# expect: policy_violation
# layer: format_checker
parts = ["{0.__class__.__base__}", 1]
print(str.format(*parts))
