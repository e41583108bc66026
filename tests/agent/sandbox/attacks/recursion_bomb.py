# ruff: noqa
# attack: unbounded recursion
# expect: error
def f(n):
    return f(n + 1)
f(0)
