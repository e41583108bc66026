# ruff: noqa
# PLAN: find the red 2x4 and put it on the grey base at its first stud.
bricks = observe()
red = [b for b in bricks if b.color == "red" and tuple(b.size) == (4, 2)]
target = red[0]
pick(target.id)
result = place_on("p6", 0, 0)
print("placed", result.brick, "seated:", result.seated)
