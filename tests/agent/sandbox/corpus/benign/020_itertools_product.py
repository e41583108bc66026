# ruff: noqa
import itertools

observe()
spots = list(itertools.product(range(2), range(3)))
print(len(spots), spots[:3])
