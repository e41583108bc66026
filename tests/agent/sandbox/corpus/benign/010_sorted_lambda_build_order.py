# ruff: noqa
bricks = observe()
loose = sorted((b for b in bricks if not b.in_structure), key=lambda b: (b.y_mm, b.x_mm))
for i, b in enumerate(loose[:2]):
    pick(b.id)
    place_on("p6", 2 * i, 0)
    observe()
print("done")
