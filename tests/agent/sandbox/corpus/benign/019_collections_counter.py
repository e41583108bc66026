# ruff: noqa
from collections import Counter

bricks = observe()
counts = Counter(b.color for b in bricks)
print(counts.most_common(2))
