# ruff: noqa
# The manual shows three steps:
#   step 1: red 2x4 on the base, left end
#   step 2: yellow 2x4 on the base, right end
#   step 3: blue 2x2 bridging them
bricks = observe()
red = find_bricks(color="red", size=(4, 2), loose_only=True)[0]
yellow = find_bricks(color="yellow", size=(4, 2), loose_only=True)[0]
pick(red.id)
place_on("p6", 0, 0)
observe()
pick(yellow.id)
place_on("p6", 2, 0)
observe()
blue = find_bricks(color="blue", loose_only=True)
if blue:
    pick(blue[0].id)
    place_on(red.id, 2, 0)
go_home()
final = observe()
print("final scene:", len(final), "bricks")
