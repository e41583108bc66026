# ruff: noqa
# attack: getattr spelling of a frame attribute at run time
# expect: policy_violation
# layer: restricted_builtins
g = (x for x in [1])
print(getattr(g, "gi_" + "frame"))
