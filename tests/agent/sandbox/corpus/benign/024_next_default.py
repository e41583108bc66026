# ruff: noqa
bricks = observe()
white = next((b for b in bricks if b.color == "white"), None)
if white is not None:
    pick(white.id)
    place_on("p6", 2, 0)
