# ruff: noqa
colors = {b.color for b in observe()}
needed = {"red", "blue", "green"}
print("missing colours:", sorted(needed - colors))
