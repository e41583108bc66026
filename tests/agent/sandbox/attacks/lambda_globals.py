# ruff: noqa
# attack: function globals through a lambda
# expect: policy_violation
print((lambda: 0).__globals__)
