# ruff: noqa
bricks = observe()
assert bricks, "nothing visible"
pick(bricks[0].id)
res = place_on("p6", 0, 0)
assert res.seated, "brick not seated"
print("ok")
