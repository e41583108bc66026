# ruff: noqa
from collections import defaultdict

groups = defaultdict(list)
for b in observe():
    groups[tuple(b.size)].append(b.id)
for size in sorted(groups):
    print(size, groups[size])
