# ruff: noqa
from itertools import chain, islice

bricks = observe()
red = find_bricks(color="red")
blue = find_bricks(color="blue")
for b in islice(chain(red, blue), 2):
    print(b.id, b.color)
