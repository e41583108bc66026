# ruff: noqa
seen = frozenset(b.id for b in observe())
expected = {"p1", "p2", "p3"}
print(sorted(expected & seen), expected <= seen)
