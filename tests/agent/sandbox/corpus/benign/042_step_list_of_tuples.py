# ruff: noqa
steps = [("p1", 0, 0, 0), ("p2", 4, 0, 0), ("p5", 0, 0, 1)]
observe()
for brick_id, sx, sy, rot in steps:
    pick(brick_id)
    place_on("p6", sx, sy, rotation=rot)
    observe()
print("built", len(steps), "steps")
