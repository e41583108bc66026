# ruff: noqa
# attack: getattr reaching a bound str.format as a value (the unchecked formatter)
# expect: policy_violation
# layer: restricted_builtins
fmt = getattr("{0.__class__}", "format")
print(fmt(1))
