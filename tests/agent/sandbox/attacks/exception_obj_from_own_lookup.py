# ruff: noqa
# attack: AttributeError.obj of a failed lookup on a stub, then its __globals__
# expect: policy_violation
# layer: ast_policy
try:
    ping.nope
except AttributeError as e:
    print(e.obj.__globals__)
