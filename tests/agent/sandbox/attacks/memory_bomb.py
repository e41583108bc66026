# ruff: noqa
# attack: one huge allocation
# expect: resource_limit
# layer: rlimits
x = [0] * (10 ** 10)
