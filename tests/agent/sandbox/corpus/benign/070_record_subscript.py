# ruff: noqa
bricks = observe()
b = bricks[0]
print(b["id"], b["color"], b["size"][0])
res = grasp_plan(b["id"])
print(res["opening_mm"] > 0)
