# ruff: noqa
bricks = observe()
try:
    pick("p99")
except SkillError as e:
    print("pick failed:", e.kind, e.message)
    pick(bricks[0].id)
    put_down()
