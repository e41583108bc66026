# ruff: noqa
from itertools import pairwise
import math

bricks = sorted(observe(), key=lambda b: b.x_mm)
gaps = [round(math.dist((a.x_mm, a.y_mm), (b.x_mm, b.y_mm))) for a, b in pairwise(bricks)]
print(gaps)
