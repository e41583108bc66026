# ruff: noqa
observe()
try:
    pick("p2")
except SkillError as e:
    print("failed", e)
else:
    place_on("p6", 0, 0)
finally:
    go_home()
print("cycle complete")
