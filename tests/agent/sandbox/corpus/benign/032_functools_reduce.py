# ruff: noqa
from functools import reduce

bricks = observe()
total_studs = reduce(lambda acc, b: acc + b.size[0] * b.size[1], bricks, 0)
print("studs:", total_studs)
