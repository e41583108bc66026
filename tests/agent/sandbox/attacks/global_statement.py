# ruff: noqa
# attack: global statement
# expect: policy_violation
def f():
    global ping
    ping = None
f()
