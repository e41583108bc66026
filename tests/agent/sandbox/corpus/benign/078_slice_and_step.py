# ruff: noqa
bricks = observe()
print([b.id for b in bricks[::2]], [b.id for b in bricks[-2:]])
