# ruff: noqa
observe()
blue = find_bricks(color="blue")
if blue:
    pick(blue[0].id)
    place_on("p6", 2, 0)
else:
    print("no blue brick found")
