# ruff: noqa
bricks = observe()
ranked = sorted(bricks, key=lambda b: (-b.size[0] * b.size[1], b.color))
print([b.id for b in ranked])
