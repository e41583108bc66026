# ruff: noqa
bricks = observe()
for b in bricks:
    print("{} {:>6.1f} {:>6.1f}".format(b.id, b.x_mm, b.y_mm))
print("{name} has {n} bricks".format(name="scene", n=len(bricks)))
