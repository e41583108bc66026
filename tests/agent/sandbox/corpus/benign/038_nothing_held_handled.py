# ruff: noqa
try:
    put_down()
except SkillError as e:
    print("nothing to put down:", e.kind)
