# ruff: noqa
placed = 0


def place_next(brick_id, sx, sy):
    global placed
    pick(brick_id)
    place_on("p6", sx, sy)
    placed += 1


observe()
place_next("p1", 0, 0)
observe()
place_next("p2", 4, 0)
print("placed", placed)
