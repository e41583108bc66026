# ruff: noqa
# attack: string doubling until memory runs out
# expect: resource_limit
# layer: rlimits
s = "a"
while True:
    s = s + s
