# ruff: noqa
# attack: generator frame walk to the caller's globals
# expect: policy_violation
# layer: ast_policy
g = (x for x in [1])
print(g.gi_frame.f_back.f_globals)
