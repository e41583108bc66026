# ruff: noqa
# attack: print flood
# expect: resource_limit
while True:
    print("x" * 1000)
