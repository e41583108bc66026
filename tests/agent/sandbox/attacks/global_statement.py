# ruff: noqa
# attack: global statement
# expect: policy_violation
# layer: ast_policy
def f():
    global ping
    ping = None
f()
