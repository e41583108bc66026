# ruff: noqa
from itertools import groupby

bricks = sorted(observe(), key=lambda b: b.color)
for colour, group in groupby(bricks, key=lambda b: b.color):
    print(colour, len(list(group)))
