# ruff: noqa
observe()
pick("p1")
try:
    place_on("p6", 0, 0)
except SkillError as e:
    print("placement failed:", e)
    put_down()
go_home()
