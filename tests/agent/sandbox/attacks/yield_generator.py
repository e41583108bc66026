# ruff: noqa
# attack: generator function (frame internals)
# expect: policy_violation
def g():
    yield 1
print(list(g()))
