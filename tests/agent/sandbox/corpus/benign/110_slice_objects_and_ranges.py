# ruff: noqa
bricks = observe()
window = slice(1, 4)
print([b.id for b in bricks[window]], list(range(0, 10, 3)))
