# ruff: noqa
# attack: one print() call with two million arguments
# expect: resource_limit
# layer: stdout_cap
print(*([1] * 2_000_000))
