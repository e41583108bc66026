# ruff: noqa
# attack: globals() to reach module state
# expect: policy_violation
g = globals()
print(g)
