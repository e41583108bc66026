# ruff: noqa
observe()
order = ["p1", "p3", "p5"]
for idx in reversed(range(len(order))):
    print(idx, order[idx])
