# ruff: noqa
# Stack two bricks on the build area lattice.
observe()
pick("p1")
place_at(0, 0, 0)
observe()
pick("p3")
place_at(0, 0, 3)
print("stacked")
