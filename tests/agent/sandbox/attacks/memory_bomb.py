# ruff: noqa
# attack: one huge allocation
# expect: resource_limit
x = [0] * (10 ** 10)
