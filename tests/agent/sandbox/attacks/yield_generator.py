# ruff: noqa
# attack: generator function (frame internals)
# expect: policy_violation
# layer: ast_policy
def g():
    yield 1
print(list(g()))
