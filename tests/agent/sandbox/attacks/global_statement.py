# ruff: noqa
# attack: global statement rebinding the program's __builtins__
# expect: policy_violation
# layer: ast_policy
def f():
    global __builtins__
    __builtins__ = {}
f()
