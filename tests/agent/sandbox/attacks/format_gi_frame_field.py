# ruff: noqa
# attack: bound format field gi_frame.f_globals (underscore-free frame route)
# expect: policy_violation
# layer: format_checker
g = (x for x in [1])
print("{0.gi_frame.f_globals}".format(g))
