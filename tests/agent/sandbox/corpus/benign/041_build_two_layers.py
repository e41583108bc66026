# ruff: noqa
# PLAN
# 1. observe the scene
# 2. place the two 2x4 bricks side by side on the base
# 3. put the 2x2 on top
bricks = observe()
two_by_four = [b for b in bricks if tuple(b.size) == (4, 2) and not b.in_structure]
for i, b in enumerate(two_by_four[:2]):
    pick(b.id)
    place_on("p6", 0, 2 * i)
    bricks = observe()
small = find_bricks(size=(2, 2), loose_only=True)
if small:
    pick(small[0].id)
    place_on(two_by_four[0].id, 1, 0)
go_home()
