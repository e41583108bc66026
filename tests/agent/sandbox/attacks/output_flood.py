# ruff: noqa
# attack: print flood
# expect: resource_limit
# layer: stdout_cap
while True:
    print("x" * 1000)
