# ruff: noqa
observe()
try:
    placement("p6", "p42", 0, 0)
except SkillError as e:
    print(f"error ({e.kind}): {e}")
    print(str(e).split(".")[0])
