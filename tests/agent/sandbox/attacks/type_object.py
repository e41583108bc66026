# ruff: noqa
# attack: type() to reach object
# expect: policy_violation
print(type(1).mro())
