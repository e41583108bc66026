# ruff: noqa
# attack: unbounded recursion
# expect: error
# layer: recursion_limit
def f(n):
    return f(n + 1)
f(0)
