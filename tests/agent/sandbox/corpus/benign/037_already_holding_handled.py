# ruff: noqa
observe()
pick("p2")
try:
    pick("p4")
except SkillError as e:
    if e.kind == "already_holding":
        place_on("p6", 0, 0)
print("handled")
