# ruff: noqa
# attack: nonlocal to rebind a closure cell
# expect: policy_violation
# layer: ast_policy
def f():
    x = 1
    def g():
        nonlocal x
        x = 2
    g()
f()
