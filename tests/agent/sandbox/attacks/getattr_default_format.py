# ruff: noqa
# attack: getattr with a default, asking for a bound format method
# expect: policy_violation
# layer: restricted_builtins
f = getattr("{0.__class__}", "format_map", None)
print(f)
