# ruff: noqa
# attack: an exception's args carrying the stub function, then a walk from it
# expect: policy_violation
# layer: ast_policy
try:
    raise ValueError(ping)
except ValueError as e:
    print(e.args[0].__globals__)
